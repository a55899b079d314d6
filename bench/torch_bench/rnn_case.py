"""One RNN step at batch 1: x [1, D] in, the session's (h, c) state carried
from step to step, h [1, H] out. normrt runs the converted model with S = 1
per run (the state lives in the session); PyTorch calls the cell module with
the state held in Python, as a decoding loop would."""
import os

import numpy as np
import torch

from torch_bench import rnn_models, timing
from torch_bench.context import Row, agreement, as_bf16

D, H = 512, 1024
P = 1.0 / 16  # pRMSNorm: statistic over 1/16 of each row (the RMSNorm paper's p = 6.25%)
CHECK_STEPS = 8
VARIANTS = [  # (arch, norm)
    ("lstm", "layer_norm"), ("lstm", "rms_norm"), ("lstm", "prms_norm"), ("lstm", "none"),
    ("gru", "layer_norm"), ("gru", "rms_norm"), ("gru", "prms_norm"), ("gru", "none"),
]
LABEL = {"layer_norm": "LN", "rms_norm": "RMS", "prms_norm": "pRMS 1/16", "none": "plain"}


class TorchStepper:
    """cell(x, state) with the state carried across calls."""

    def __init__(self, cell, arch, dtype):
        self.cell, self.lstm, self.dtype = cell, arch == "lstm", dtype
        self.reset()

    def reset(self):
        zeros = torch.zeros(1, H, dtype=self.dtype)
        self.state = (zeros, zeros.clone()) if self.lstm else zeros

    def step(self, x):
        self.state = self.cell(x, self.state)
        return self.state[0] if self.lstm else self.state


def run(ctx, variants=VARIANTS):
    for index, (arch, kind) in enumerate(variants):
        generator = torch.Generator().manual_seed(2000 + index)
        cell = rnn_models.make_cell(arch, kind, D, H, P).eval()
        rnn_models.randomize(cell, generator)
        name = f"{arch}_{kind}"
        prefix = ctx.path(name)
        config = rnn_models.rnn_config(arch, kind, D, H, P, CHECK_STEPS)
        state = rnn_models.OneLayer(cell).state_dict()
        _export(state, config, prefix)
        xs = torch.randn(CHECK_STEPS, 1, D, generator=generator)  # unit-scale inputs
        arch_label = f"LN-{arch.upper()} step ({LABEL[kind]})" if kind != "none" else \
            f"{arch.upper()} step (plain; torch nn.{arch.upper()}Cell)"
        shape = f"D={D} H={H}"

        torch_f32 = TorchStepper(cell, arch, torch.float32)
        with torch.inference_mode():
            torch_f32.reset()
            reference = np.concatenate([torch_f32.step(x).numpy() for x in xs])
            warmup, reps = ctx.reps(50, 400)
            x0 = xs[0]
            torch_time = timing.measure(lambda: torch_f32.step(x0), warmup, reps)
            torch_bf16_time = None
            if "bf16" in ctx.dtypes and ctx.torch_bf16:
                stepper = TorchStepper(as_bf16(cell), arch, torch.bfloat16)
                xb = x0.to(torch.bfloat16)
                torch_bf16_time = timing.measure(lambda: stepper.step(xb), warmup, reps)

        for dtype in ctx.dtypes:
            model = ctx.convert_and_load(prefix + ".json", prefix + ".safetensors", name, dtype)
            session = model.session()
            outputs = []
            for x in xs:
                session.set_input("x", np.ascontiguousarray(x.numpy()))
                session.run()
                outputs.append(session.output("h_seq"))
            diff, scale = agreement(np.concatenate(outputs), reference)
            x_np = np.ascontiguousarray(xs[0].numpy())

            def normrt_step():
                session.set_input("x", x_np)
                session.run()

            row = Row(arch_label, shape, dtype, normrt=timing.measure(normrt_step, warmup, reps),
                      torch=torch_time, max_abs_diff=diff, max_abs_ref=scale)
            if dtype == "bf16":
                row.torch_bf16 = torch_bf16_time
            ctx.add(row)


def _export(state, config, prefix):
    from export_torch import export  # tools/export_torch.py (on sys.path, see the script)
    export(state, config, prefix)
    assert os.path.exists(prefix + ".safetensors")
