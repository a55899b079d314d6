"""One RNN step at batch 1: x [1, D] in, the session's (h, c) state carried
from step to step, h [1, H] out. normrt runs the converted model with S = 1
per run (the state lives in the session); PyTorch calls the cell module with
the state held in Python, as a decoding loop would."""
import numpy as np
import torch

from export_torch import export  # tools/export_torch.py (on sys.path, see the script)
from torch_bench import rnn_models
from torch_bench.context import agreement, as_bf16

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
        export(rnn_models.OneLayer(cell).state_dict(),
               rnn_models.rnn_config(arch, kind, D, H, P, CHECK_STEPS), prefix)
        xs = torch.randn(CHECK_STEPS, 1, D, generator=generator)  # unit-scale inputs
        contenders, checks = {}, {}
        with torch.inference_mode():
            torch_f32 = TorchStepper(cell, arch, torch.float32)
            reference = np.concatenate([torch_f32.step(x).numpy() for x in xs])
            contenders["torch f32"] = (lambda s=torch_f32, x=xs[0]: s.step(x), None)
            if ctx.torch_bf16:
                bf16 = TorchStepper(as_bf16(cell), arch, torch.bfloat16)
                contenders["torch bf16"] = (lambda s=bf16, x=xs[0].bfloat16(): s.step(x), None)
            for dtype in ctx.dtypes:
                session = ctx.convert_and_load(prefix + ".json", prefix + ".safetensors", name,
                                               dtype).session()
                checks[dtype] = agreement(np.concatenate(normrt_steps(session, xs)), reference)
                contenders[f"normrt {dtype}"] = (
                    lambda s=session, x=np.ascontiguousarray(xs[0].numpy()): normrt_step(s, x),
                    None)
            times = ctx.measure(contenders, warmup=10, reps=400)
        arch_label = f"LN-{arch.upper()} step ({LABEL[kind]})" if kind != "none" else \
            f"{arch.upper()} step (plain; torch nn.{arch.upper()}Cell)"
        ctx.add_rows(arch_label, f"D={D} H={H}", times, checks)


def normrt_step(session, x):
    session.set_input("x", x)
    session.run()


def normrt_steps(session, xs):
    """h after each of the steps xs, from the zero state."""
    session.reset()
    outputs = []
    for x in xs:
        normrt_step(session, np.ascontiguousarray(x.numpy()))
        outputs.append(session.output("h_seq"))
    return outputs
