"""The result table: plain text for the terminal and Markdown for
docs/bench_models.md (same columns). Times in milliseconds."""

COLUMNS = ["architecture", "shape", "normrt dtype", "normrt p50", "normrt p90", "torch f32 p50",
           "torch f32 p90", "torch/normrt", "torch bf16 p50", "max|Δ| (max|ref|)"]


def _ms(t, which="p50_ms"):
    return "—" if t is None else f"{getattr(t, which):.3f}"


def cells(row):
    agree = "—" if row.max_abs_diff is None else \
        f"{row.max_abs_diff:.1e} ({row.max_abs_ref:.2g})"
    ratio = "—" if row.ratio is None else f"{row.ratio:.2f}"
    return [row.arch, row.shape, row.dtype, _ms(row.normrt), _ms(row.normrt, "p90_ms"),
            _ms(row.torch), _ms(row.torch, "p90_ms"), ratio, _ms(row.torch_bf16), agree]


def text_table(rows):
    table = [COLUMNS] + [cells(r) for r in rows]
    widths = [max(len(line[i]) for line in table) for i in range(len(COLUMNS))]
    lines = []
    for n, line in enumerate(table):
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    notes = [f"  {r.arch} [{r.dtype}]: {note}" for r in rows for note in r.notes]
    return "\n".join(lines + (["notes:"] + notes if notes else []))


def markdown_table(rows):
    def line(values):  # a literal | inside a cell must be escaped
        return "| " + " | ".join(v.replace("|", "\\|") for v in values) + " |"

    lines = [line(COLUMNS), "|" + "---|" * len(COLUMNS)] + [line(cells(r)) for r in rows]
    notes = [f"- {r.arch} [{r.dtype}]: {note}" for r in rows for note in r.notes]
    return "\n".join(lines + ([""] + notes if notes else []))
