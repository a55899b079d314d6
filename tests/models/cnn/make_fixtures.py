#!/usr/bin/env python3
"""Writes the fixtures of test_models_cnn: ConvPool-CNN-C (the WeightNorm
authors' Lasagne train.py, with the RMSNorm authors' RMSNormLayer as the
normalizer) with random weights, written here from the equations in PyTorch
float64 — independently of normrt's C++ — for each normalization:

  fixtures/<case>.safetensors     the state_dict, float32 (names: docs/cnn.md)
  fixtures/<case>.json            normrt's convpool_cnn_c config
  fixtures/<case>.io.safetensors  "x" (float32 input) and "logits" (float64:
                                  the float32 weights and input, evaluated in
                                  float64)

The equations (Lasagne's layers; the authors' nn.py):
  conv:        F.conv2d, stride 1, zero padding (pad=1: "same"; pad=0: "valid")
  norm:        per image and channel over the H×W plane (axes 2, 3):
                 rms_norm:   x / sqrt(mean(x², (2,3)) + eps)          RMSNormLayer
                 layer_norm: (x − mean) / sqrt(var + eps), var biased
                 prms_norm:  as rms_norm, mean(x²) over the plane's first
                             int(H·W·p) values (row-major), all scaled
               then · g[c], then + b[c] (RMSNormLayer's order), eps 1e-6
               inside the root; "none": + b[c] (the conv's own bias)
  lrelu:       max(x, 0.1·x)                                           nn.lrelu
  max-pool:    2×2, stride 2 (MaxPool2DLayer(2), ignore_border)
  global pool: mean over (2, 3)                                        GlobalAvgLayer
  dense:       x·Wᵀ, then the same norm over axis 1 (the authors wrap the
               dense layer in the normalizer too), or + b for "none"

The widths are small (C1 = 8, C2 = 12; a geometry with odd widths, batch 2
and an 18×18 input; one with widths 16, where Conv2d uses oneDNN's blocked layout)
so the committed files stay small; the layer list is the full network's. Run: /work/venv/bin/python tests/models/cnn/make_fixtures.py
"""
import json
import os

import numpy as np
import torch
import torch.nn.functional as F
from safetensors.torch import save_file

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fixtures")
EPS = 1e-6
P = 0.25
SLOPE = 0.1

# (output channels of stage 1 or 2, kernel, padding, max-pool after)
def layer_list(c1, c2):
    return [(c1, 3, 1, False), (c1, 3, 1, False), (c1, 3, 1, True),
            (c2, 3, 1, False), (c2, 3, 1, False), (c2, 3, 1, True),
            (c2, 3, 0, False), (c2, 1, 0, False), (c2, 1, 0, False)]


def normalize(x, kind, axes):
    """x̂ over `axes` (float64)."""
    if kind == "layer_norm":
        mean = x.mean(dim=axes, keepdim=True)
        var = ((x - mean) ** 2).mean(dim=axes, keepdim=True)
        return (x - mean) / torch.sqrt(var + EPS)
    if kind == "rms_norm":
        return x / torch.sqrt((x * x).mean(dim=axes, keepdim=True) + EPS)
    assert kind == "prms_norm"
    flat = x.flatten(start_dim=axes[0])  # (.., H·W) or (.., n)
    k = int(flat.shape[-1] * P)
    ms = (flat[..., :k] ** 2).mean(dim=-1)
    for _ in axes:
        ms = ms.unsqueeze(-1)
    return x / torch.sqrt(ms + EPS)


def forward(weights, x, kind, c1, c2):
    """The network in float64 from the float32 weights."""
    w = {name: t.double() for name, t in weights.items()}
    h = x.double()
    for i, (_, k, pad, pool) in enumerate(layer_list(c1, c2)):
        h = F.conv2d(h, w[f"conv.{i}.weight"], padding=pad)
        if kind == "none":
            h = h + w[f"conv.{i}.bias"][None, :, None, None]
        else:
            h = normalize(h, kind, (2, 3))
            h = h * w[f"norm.{i}.weight"][None, :, None, None]
            h = h + w[f"norm.{i}.bias"][None, :, None, None]
        h = torch.maximum(h, SLOPE * h)
        if pool:
            h = F.max_pool2d(h, 2)
    h = h.mean(dim=(2, 3))
    h = h @ w["dense.weight"].T
    if kind == "none":
        return h + w["dense.bias"]
    return normalize(h, kind, (1,)) * w["dense_norm.weight"] + w["dense_norm.bias"]


def make_weights(kind, in_channels, c1, c2, classes, generator):
    """Realistic magnitudes: He-scaled convolutions, gains near 1, small biases."""
    def normal(*shape, std):
        return torch.randn(*shape, generator=generator, dtype=torch.float64).mul(std).float()

    weights, channels = {}, in_channels
    for i, (out, k, _, _) in enumerate(layer_list(c1, c2)):
        weights[f"conv.{i}.weight"] = normal(out, channels, k, k, std=(2.0 / (channels * k * k)) ** 0.5)
        if kind == "none":
            weights[f"conv.{i}.bias"] = normal(out, std=0.1)
        else:
            weights[f"norm.{i}.weight"] = 1.0 + normal(out, std=0.2)
            weights[f"norm.{i}.bias"] = normal(out, std=0.2)
        channels = out
    weights["dense.weight"] = normal(classes, channels, std=channels ** -0.5)
    if kind == "none":
        weights["dense.bias"] = normal(classes, std=0.1)
    else:
        weights["dense_norm.weight"] = 1.0 + normal(classes, std=0.2)
        weights["dense_norm.bias"] = normal(classes, std=0.2)
    return weights


CASES = {
    # name: (norm, in_channels, image_size, C1, C2, classes, batch)
    "cnn_rms_norm": ("rms_norm", 3, 32, 8, 12, 10, 1),
    "cnn_layer_norm": ("layer_norm", 3, 32, 8, 12, 10, 1),
    "cnn_prms_norm": ("prms_norm", 3, 32, 8, 12, 10, 1),
    "cnn_none": ("none", 3, 32, 8, 12, 10, 1),
    "cnn_rms_norm_odd": ("rms_norm", 2, 18, 5, 7, 4, 2),
    # Widths of 16: the blocked layout (Conv2d runs NCHW below 16 input channels).
    "cnn_rms_norm_w16": ("rms_norm", 3, 32, 16, 16, 10, 1),
}


def main():
    os.makedirs(OUT, exist_ok=True)
    for index, (name, (kind, cin, size, c1, c2, classes, batch)) in enumerate(CASES.items()):
        generator = torch.Generator().manual_seed(2019 + index)
        weights = make_weights(kind, cin, c1, c2, classes, generator)
        # ZCA-whitened CIFAR-10 pixels are roughly unit-variance.
        x = torch.randn(batch, cin, size, size, generator=generator, dtype=torch.float64).float()
        logits = forward(weights, x, kind, c1, c2)
        config = {"architecture": "convpool_cnn_c", "in_channels": cin, "image_size": size,
                  "stage1_channels": c1, "stage2_channels": c2, "num_classes": classes,
                  "batch": batch, "norm": kind, "eps": EPS, "negative_slope": SLOPE}
        if kind == "prms_norm":
            config["p"] = P
        prefix = os.path.join(OUT, name)
        save_file({k: v.contiguous() for k, v in weights.items()}, prefix + ".safetensors")
        save_file({"x": x.contiguous(), "logits": logits.contiguous()}, prefix + ".io.safetensors")
        with open(prefix + ".json", "w") as f:
            json.dump(config, f, indent=2)
            f.write("\n")
        print(name, kind, "logits", np.array2string(logits[0].numpy(), precision=4))


if __name__ == "__main__":
    main()
