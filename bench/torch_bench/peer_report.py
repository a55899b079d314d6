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


def pivots(report):
    """Per (case, threads): one line per shape, normrt f32's p50 in ms, then
    every other side's p50 ÷ normrt f32's p50 (throughput cases: items/s
    of every side). [(title, columns, lines)]."""
    out = []
    groups = []
    for r in report.rows:
        if (r.case, r.threads) not in groups:
            groups.append((r.case, r.threads))
    for case, threads in groups:
        rows = [r for r in report.rows if r.case == case and r.threads == threads]
        shapes = list(dict.fromkeys(r.shape for r in rows))
        sides = list(dict.fromkeys(r.side for r in rows))
        throughput = any(r.items > 1 for r in rows)
        if throughput:
            columns = ["shape"] + [f"{s} items/s" for s in sides]
        else:
            columns = ["shape", "normrt f32 ms"] + [s for s in sides if s != "normrt f32"]
        lines = []
        for shape in shapes:
            by_side = {r.side: r for r in rows if r.shape == shape}
            line = [shape]
            if throughput:
                line += [_num(by_side[s].items / (by_side[s].timing.p50_ms / 1e3), ".1f")
                         if s in by_side else "—" for s in sides]
            else:
                base = by_side.get("normrt f32")
                line.append(_num(base.timing.p50_ms if base else None, ".2f"))
                line += [_num(report.ratio(by_side[s]), ".2f") if s in by_side else "—"
                         for s in sides if s != "normrt f32"]
            lines.append(line)
        what = "sentences/s" if throughput else "peer p50 ÷ normrt f32 p50 (> 1: normrt faster)"
        out.append((f"{case}, {threads} thread(s): {what}", columns, lines))
    return out


def scaling(report):
    """Per case and thread count t > 1: every side's p50 at 1 thread ÷ its
    p50 at t threads (the speed-up t threads bring). [(title, columns, lines)]."""
    out = []
    cases = list(dict.fromkeys(r.case for r in report.rows))
    for case in cases:
        rows = [r for r in report.rows if r.case == case]
        one = {(r.shape, r.side): r for r in rows if r.threads == 1}
        for threads in sorted({r.threads for r in rows} - {1}):
            many = {(r.shape, r.side): r for r in rows if r.threads == threads}
            sides = list(dict.fromkeys(side for _, side in many))
            shapes = list(dict.fromkeys(shape for shape, _ in many))
            lines = [[shape] + [_num(one[(shape, side)].timing.p50_ms /
                                     many[(shape, side)].timing.p50_ms, ".2f")
                                if (shape, side) in one and (shape, side) in many else "—"
                                for side in sides] for shape in shapes]
            out.append((f"{case}: p50 at 1 thread ÷ p50 at {threads} threads", ["shape"] + sides,
                        lines))
    return out


def text_tables(report):
    parts = [_text(COLUMNS, [cells(report, r) for r in report.rows])]
    parts += [title + "\n" + _text(columns, lines)
              for title, columns, lines in pivots(report) + scaling(report)]
    if report.accuracy:
        parts.append(_text(ACCURACY_COLUMNS, [accuracy_cells(a) for a in report.accuracy]))
    if report.notes:
        parts.append("notes:\n" + "\n".join("  " + n for n in report.notes))
    return "\n\n".join(parts)


def markdown_tables(report):
    parts = [_markdown(COLUMNS, [cells(report, r) for r in report.rows])]
    parts += [f"{title}\n\n" + _markdown(columns, lines)
              for title, columns, lines in pivots(report) + scaling(report)]
    if report.accuracy:
        parts.append(_markdown(ACCURACY_COLUMNS, [accuracy_cells(a) for a in report.accuracy]))
    if report.notes:
        parts.append("\n".join("- " + n for n in report.notes))
    return "\n\n".join(parts)
