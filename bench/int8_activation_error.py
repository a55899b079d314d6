#!/usr/bin/env python3
"""The error of int8 linear layers by how x is quantized, on synthetic rows.

Backs the choice in kernels/linear/linear_int8.h (symmetric per-row x) with
numbers, and shows where the error comes from (docs/int8.md):
  w8        weights per output channel (symmetric int8), x in float
  x8-sym    x per row, symmetric int8 (scale max|x|/127), weights float
  x8-asym   x per row, asymmetric uint8 (scale (max-min)/255, zero point)
  both      w8 and x8-sym: what the kernels compute
  both-asym w8 and x8-asym
  smooth    both, after SmoothQuant-style migration (x_j / s_j, W[:, j] * s_j,
            s_j = sqrt(max|x_j| / max|W[:, j]|)), a converter-side option
Error: relative RMS of y = x·Wᵀ against float64, over rows of
  layernorm  N(0, 1) (as after a LayerNorm without outliers)
  outliers   the same with two channels at ±20 and -12 (BERT-like)
  gelu       GELU(N(0, 1)): one-sided rows (the FFN down-projection input)
Weights: N(0, 1/k) with one in 500 scaled by 8. Seeded; runs in seconds.
Usage: python bench/int8_activation_error.py [--k 384] [--n 1536] [--rows 64]
"""
import argparse
import math

import numpy as np


def quantize_sym(v, axis):
    """Symmetric int8 along `axis` as linear_int8.h does (float32, ties to even)."""
    v = v.astype(np.float32)
    amax = np.max(np.abs(v), axis=axis, keepdims=True)
    scale = (amax / np.float32(127)).astype(np.float32)
    inv = np.where(amax > 0, np.float32(127) / np.where(amax > 0, amax, 1), 0).astype(np.float32)
    q = np.clip(np.rint(v * inv), -127, 127)
    return (q * scale).astype(np.float64)


def quantize_asym(v, axis):
    """Asymmetric uint8 with a zero point along `axis` (the alternative)."""
    v = v.astype(np.float64)
    lo = np.minimum(np.min(v, axis=axis, keepdims=True), 0)
    hi = np.maximum(np.max(v, axis=axis, keepdims=True), 0)
    scale = np.where(hi > lo, (hi - lo) / 255, 1)
    zero = np.rint(-lo / scale)
    q = np.clip(np.rint(v / scale) + zero, 0, 255)
    return (q - zero) * scale


def rows(kind, m, k, rng):
    z = rng.standard_normal((m, k))
    if kind == "gelu":
        return 0.5 * z * (1 + np.vectorize(math.erf)(z / math.sqrt(2)))
    if kind == "outliers":
        z[:, 3] = 20 * np.where(np.arange(m) % 2, -1, 1)
        z[:, k // 2] = -12
    return z


def rel_rms(y, ref):
    return float(np.sqrt(np.mean((y - ref) ** 2) / np.mean(ref**2)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--k", type=int, default=384)
    ap.add_argument("--n", type=int, default=1536)
    ap.add_argument("--rows", type=int, default=64)
    args = ap.parse_args()
    rng = np.random.default_rng(1)
    k, n, m = args.k, args.n, args.rows
    w = rng.standard_normal((n, k)) / math.sqrt(k)
    w *= np.where(rng.random((n, k)) < 1 / 500, 8, 1)
    w = w.astype(np.float32).astype(np.float64)
    w8 = quantize_sym(w, axis=1)
    print(f"k={k} n={n} rows={m}; relative RMS error of y against float64")
    print(f"{'rows':10} {'w8':>9} {'x8-sym':>9} {'x8-asym':>9} {'both':>9} {'both-asym':>9}"
          f" {'smooth':>9}")
    for kind in ("layernorm", "outliers", "gelu"):
        x = rows(kind, m, k, rng).astype(np.float32).astype(np.float64)
        ref = x @ w.T
        s = np.sqrt(np.max(np.abs(x), axis=0) / np.maximum(np.max(np.abs(w), axis=0), 1e-12))
        s = np.where(s > 0, s, 1)
        smooth = quantize_sym(x / s, axis=1) @ quantize_sym(w * s, axis=1).T
        print(f"{kind:10} {rel_rms(x @ w8.T, ref):9.2e} {rel_rms(quantize_sym(x, 1) @ w.T, ref):9.2e}"
              f" {rel_rms(quantize_asym(x, 1) @ w.T, ref):9.2e}"
              f" {rel_rms(quantize_sym(x, 1) @ w8.T, ref):9.2e}"
              f" {rel_rms(quantize_asym(x, 1) @ w8.T, ref):9.2e} {rel_rms(smooth, ref):9.2e}")


if __name__ == "__main__":
    main()
