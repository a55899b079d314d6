#!/usr/bin/env python3
"""Writes the readers' fixtures: tiny files saved by PyTorch (safetensors) and
numpy (.npz), read back by test_fixtures.cc, which recomputes every expected
value from the same formulas.

    /work/venv/bin/python3 tests/tools/readers/make_fixtures.py

Needs numpy, torch and the `safetensors` package (a venv with
--system-site-packages and `pip install safetensors`).

Values: element i of a tensor (row-major) is 0.25 * (i - 5) for floating
types (exact in F16/BF16/F32/F64), 3 * i - 4 for integers, i % 2 == 0 for bool.
"""
import os

import numpy as np
import torch
from safetensors.torch import save_file

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


def floats(shape, dtype):
    n = int(np.prod(shape))
    return (0.25 * (np.arange(n, dtype=np.float64) - 5)).reshape(shape).astype(dtype)


def ints(shape, dtype):
    n = int(np.prod(shape))
    return (3 * np.arange(n, dtype=np.int64) - 4).reshape(shape).astype(dtype)


def bools(shape):
    n = int(np.prod(shape))
    return (np.arange(n) % 2 == 0).reshape(shape)


def main():
    os.makedirs(HERE, exist_ok=True)
    linear = torch.nn.Linear(4, 3)
    with torch.no_grad():
        linear.weight.copy_(torch.from_numpy(floats((3, 4), np.float32)))
        linear.bias.copy_(torch.from_numpy(floats((3,), np.float32)))
    tensors = {
        "linear.weight": linear.weight.detach(),
        "linear.bias": linear.bias.detach(),
        "emb": torch.from_numpy(floats((2, 5), np.float32)).to(torch.float16),
        "bf": torch.from_numpy(floats((2, 3), np.float32)).to(torch.bfloat16),
        "step": torch.tensor(-4, dtype=torch.int64),  # ints(()) : 3 * 0 - 4
        "mask": torch.from_numpy(bools((5,))),
    }
    save_file(tensors, os.path.join(HERE, "torch.safetensors"), metadata={"format": "pt"})

    np.savez(os.path.join(HERE, "numpy.npz"), W=floats((2, 3), np.float32),
             b=floats((3,), np.float64), ids=ints((4,), np.int32), mask=bools((3,)))
    np.savez_compressed(os.path.join(HERE, "numpy_compressed.npz"),
                        **{"enc/W": floats((4, 5), np.float32), "h": floats((3,), np.float16)})
    # A transposed array is Fortran-contiguous: numpy saves it with
    # fortran_order True, which the reader refuses.
    np.savez(os.path.join(HERE, "fortran.npz"), Wt=floats((3, 2), np.float32).T)


if __name__ == "__main__":
    main()
