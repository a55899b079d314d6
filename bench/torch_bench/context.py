"""What every case shares: the build tree, the loaded libnormrt, a scratch
folder for exported weights and model files, the timing budget, and the
rows measured so far.

A row compares one normrt model file (f32 or bf16 matrices) with PyTorch
float32 on the same weights: p50/p90 of both, the ratio torch/normrt of the
p50s (> 1: normrt is faster), and the agreement of their outputs on the same
inputs (max |normrt − torch|, beside max |torch| for scale). For bf16 rows
PyTorch with the model cast to bfloat16 is timed too (column torch bf16)."""
import copy
import os
from dataclasses import dataclass, field

import numpy as np
import torch

from torch_bench import converter, timing
from torch_bench.normrt_c import NormrtLibrary

# normrt variants that are a file dtype plus converter flags and a load option:
# {name: (--dtype, extra normrt-convert flags, bf16 activations at load)}.
VARIANTS = {"bf16-fast": ("bf16", (), True), "int8-all": ("int8", ("--keep-f32", "none"), False),
            "int8+bf16-fast": ("int8", ("--keep-dtype", "bf16"), True)}


@dataclass
class Row:
    arch: str
    shape: str
    dtype: str  # normrt's matrix dtype
    normrt: timing.Timing = None
    torch: timing.Timing = None
    torch_bf16: timing.Timing = None
    max_abs_diff: float = None
    max_abs_ref: float = None
    notes: list = field(default_factory=list)

    @property
    def ratio(self):
        if self.normrt is None or self.torch is None:
            return None
        return self.torch.p50_ms / self.normrt.p50_ms


class Context:
    def __init__(self, args):
        self.tree = converter.BuildTree(args.build_dir)
        self.tree.ensure_built()
        self.lib = NormrtLibrary(self.tree.library)
        self.workdir = os.path.abspath(args.workdir)
        os.makedirs(self.workdir, exist_ok=True)
        self.dtypes = args.dtypes
        self.reps_scale = args.reps_scale
        self.rounds = args.rounds
        self.clock = args.clock
        self.settle_s = 0.0  # timing.measure_rounds' pause between blocks
        # PyTorch bf16 is timed beside normrt's bf16 rows only.
        self.torch_bf16 = "bf16" in self.dtypes and not args.no_torch_bf16
        self.rows = []
        self.on_row = None  # callback(row) for progress printing
        # --keep-f32 for "int8" and "int8+bf16-fast", or None: the converter's default.
        self.int8_keep_f32 = getattr(args, "int8_keep_f32", None)

    def path(self, name):
        return os.path.join(self.workdir, name)

    def measure(self, contenders, warmup, reps):
        """timing.measure_rounds with the case's budget scaled by --reps-scale
        (at least 1 warm-up and 1 timed call per round)."""
        rounds = self.rounds
        warmup = max(1, round(warmup * self.reps_scale))
        reps = max(rounds, round(reps * self.reps_scale))
        return timing.measure_rounds(contenders, warmup, reps, rounds, self.clock,
                                     self.settle_s)

    def add_rows(self, arch, shape, times, checks, notes=None):
        """One row per normrt dtype from measure()'s {"normrt f32", "normrt bf16",
        "torch f32", "torch bf16"} and checks {dtype: (max|Δ|, max|ref|)}."""
        for dtype in self.dtypes:
            diff, scale = checks[dtype]
            self.add(Row(arch, shape, dtype, normrt=times[f"normrt {dtype}"],
                         torch=times["torch f32"],
                         torch_bf16=times.get("torch bf16") if dtype == "bf16" else None,
                         max_abs_diff=diff, max_abs_ref=scale,
                         notes=list((notes or {}).get(dtype, []))))

    def convert_and_load(self, config, weights, name, dtype, extra=()):
        """normrt-convert → <workdir>/<name>.<dtype>.nrmt, loaded with defaults
        (fusion and norm folding on). Returns the model handle. Two variants
        are not file dtypes: "bf16-fast" is the bf16 file loaded with bf16
        activations, "int8-all" the int8 conversion with --keep-f32 none,
        "int8+bf16-fast" the default keep list stored bf16 (--keep-dtype bf16)
        and loaded with bf16 activations. int8_keep_f32 replaces the default
        keep list of "int8" and "int8+bf16-fast"."""
        file_dtype, more, fast = VARIANTS.get(dtype, (dtype, (), False))
        if dtype in ("int8", "int8+bf16-fast") and self.int8_keep_f32:
            more = (*more, "--keep-f32", self.int8_keep_f32)
        output = self.path(f"{name}.{dtype if more else file_dtype}.nrmt")
        if not (fast and os.path.exists(output)):  # bf16-fast reuses the bf16 file
            converter.convert(self.tree, config, weights, output, file_dtype, [*extra, *more])
        return self.lib.load(output, bf16_activations=fast)

    def add(self, row):
        self.rows.append(row)
        if self.on_row is not None:
            self.on_row(row)


def agreement(normrt_values, torch_values):
    """(max |a − b|, max |b|) over all elements, in float64."""
    a = np.asarray(normrt_values, dtype=np.float64)
    b = np.asarray(torch_values, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"normrt output shape {a.shape} != torch {b.shape}")
    return float(np.max(np.abs(a - b))), float(np.max(np.abs(b)))


def as_bf16(module):
    """A bfloat16 copy of a PyTorch module (PyTorch's own bf16 CPU path)."""
    return copy.deepcopy(module).to(torch.bfloat16)
