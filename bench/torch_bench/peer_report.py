"""Rows of the peer benchmark and their tables (text, Markdown) and JSON.

A row is one side (runtime + precision) timed at one shape and thread
count. Rows of the same case, shape and threads form a group; each row's
ratios are its p50 over a normrt row's p50 of that group (peer time ÷
normrt time: > 1 means normrt is faster): over normrt f32, and over the
fastest normrt variant of the group (its dtype in the column header)."""
from dataclasses import asdict, dataclass, field

from torch_bench.timing import Timing


@dataclass
class PeerRow:
    case: str
    shape: str
    threads: int
    side: str
    runtime: str
    precision: str
    timing: Timing
    items: int = 1  # sentences per timed call (throughput rows)
    max_abs_diff: float = None  # against PyTorch f32, same inputs
    max_abs_ref: float = None
    note: str = ""

    @property
    def key(self):
        return (self.case, self.shape, self.threads)


@dataclass
class AccuracyRow:
    case: str
    side: str
    worst: float
    mean: float
    count: int


@dataclass
class Report:
    rows: list = field(default_factory=list)
    accuracy: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    def group(self, key):
        return [r for r in self.rows if r.key == key]

    def normrt_reference(self, key, fastest):
        normrt = [r for r in self.group(key) if r.runtime == "normrt"]
        if not normrt:
            return None
        if fastest:
            return min(normrt, key=lambda r: r.timing.p50_ms)
        return next((r for r in normrt if r.precision == "f32"), None)

    def ratio(self, row, fastest=False):
        ref = self.normrt_reference(row.key, fastest)
        return None if ref is None else row.timing.p50_ms / ref.timing.p50_ms

    def to_json(self):
        rows = []
        for r in self.rows:
            d = asdict(r)
            d["ratio_vs_normrt_f32"] = self.ratio(r)
            fastest = self.normrt_reference(r.key, True)
            d["ratio_vs_fastest_normrt"] = self.ratio(r, True)
            d["fastest_normrt"] = fastest.side if fastest else None
            if r.items > 1:
                d["items_per_s"] = r.items / (r.timing.p50_ms / 1e3)
            rows.append(d)
        return {"rows": rows, "accuracy": [asdict(a) for a in self.accuracy],
                "notes": self.notes}


COLUMNS = ["case", "shape", "thr", "side", "p50 ms", "p90 ms", "÷ normrt f32",
           "÷ fastest normrt", "items/s", "max|Δ| (max|ref|)"]


def _num(value, fmt):
    return "—" if value is None else format(value, fmt)


def cells(report, row):
    fastest = report.normrt_reference(row.key, True)
    ratio_fast = report.ratio(row, True)
    agree = "—" if row.max_abs_diff is None else \
        f"{row.max_abs_diff:.1e} ({row.max_abs_ref:.2g})"
    fast = "—" if ratio_fast is None else f"{ratio_fast:.2f} ({fastest.precision})"
    rate = "—" if row.items <= 1 else f"{row.items / (row.timing.p50_ms / 1e3):.1f}"
    return [row.case, row.shape, str(row.threads), row.side, _num(row.timing.p50_ms, ".3f"),
            _num(row.timing.p90_ms, ".3f"), _num(report.ratio(row), ".2f"), fast, rate, agree]


ACCURACY_COLUMNS = ["case", "side", "worst cos", "mean cos", "sentences"]


def accuracy_cells(a):
    return [a.case, a.side, f"{a.worst:.6f}", f"{a.mean:.6f}", str(a.count)]


def _text(columns, lines):
    table = [columns] + lines
    widths = [max(len(line[i]) for line in table) for i in range(len(columns))]
    out = []
    for n, line in enumerate(table):
        out.append("  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip())
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def _markdown(columns, lines):
    def line(values):
        return "| " + " | ".join(v.replace("|", "\\|") for v in values) + " |"
    return "\n".join([line(columns), "|" + "---|" * len(columns)] + [line(v) for v in lines])


def text_tables(report):
    parts = [_text(COLUMNS, [cells(report, r) for r in report.rows])]
    if report.accuracy:
        parts.append(_text(ACCURACY_COLUMNS, [accuracy_cells(a) for a in report.accuracy]))
    if report.notes:
        parts.append("notes:\n" + "\n".join("  " + n for n in report.notes))
    return "\n\n".join(parts)


def markdown_tables(report):
    parts = [_markdown(COLUMNS, [cells(report, r) for r in report.rows])]
    if report.accuracy:
        parts.append(_markdown(ACCURACY_COLUMNS, [accuracy_cells(a) for a in report.accuracy]))
    if report.notes:
        parts.append("\n".join("- " + n for n in report.notes))
    return "\n\n".join(parts)
