#!/usr/bin/env python3
"""Fixtures of test_models_handwriting: tiny random handwriting models
(Graves 2013, section 4: stacked LSTMs with skip connections, a mixture
density output, eqs. 18-22 and the sampling bias of eqs. 61-62) with
LN-LSTM cells (LayerNorm paper eqs. 20-22) and their RMSNorm / pRMSNorm /
plain twins, computed here in PyTorch float64 from the equations
(docs/handwriting.md), and the reference sampler's draws:

  handwriting_<norm>.safetensors / .json      the PyTorch state_dict, config
  handwriting_<norm>.io.safetensors           x [S, 3] → params [S, 1 + 6M]
                                              (teacher forcing, bias 0); and
                                              100 generated points (bias 0.5,
                                              the config's seed) with their
                                              params, all float64 but the
                                              points (float32)
  sampler.io.safetensors                      100 random mixtures (float32)
                                              and the reference sampler's
                                              points for seed 0xC0FFEE0123456789: the
                                              op must match bit for bit

Generation feeds each drawn point back; the script keeps a seed only if no
discrete choice (component, end of stroke) of the 100 steps lies within
1e-4 of its threshold, so that float32 rounding in normrt cannot flip one.
"""
import json
import os

import numpy as np
import torch
from safetensors.torch import save_file

import reference_sampler as rs

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fixtures")
EPS = 1e-5
P = 0.5
H, L, M, S, STEPS = 8, 3, 4, 7, 100
W = 1 + 6 * M
BIAS = 0.5


def norm(x, kind, gain, bias):
    if kind == "none":
        return x
    if kind == "layer_norm":
        mu = x.mean()
        y = (x - mu) / torch.sqrt(((x - mu) ** 2).mean() + EPS)
    else:
        stat = x[: int(x.numel() * P)] if kind == "prms_norm" else x
        y = x / torch.sqrt((stat * stat).mean() + EPS)
    return y * gain + bias


class Model:
    """Graves' prediction network, float64, one step at a time."""

    def __init__(self, sd, kind):
        self.t = {k: v.double() for k, v in sd.items()}
        self.kind = kind
        self.reset()

    def reset(self):
        self.h = [torch.zeros(H, dtype=torch.float64) for _ in range(L)]
        self.c = [torch.zeros(H, dtype=torch.float64) for _ in range(L)]

    def n(self, l, module, x):
        if self.kind == "none":
            return x
        g, b = ("weight", "bias") if self.kind == "layer_norm" else ("scale", "offset")
        p = f"layers.{l}.{module}."
        return norm(x, self.kind, self.t[p + g], self.t[p + b])

    def step(self, x):
        t = self.t
        below = None
        for l in range(L):
            inp = x if l == 0 else torch.cat([x, below])
            p = f"layers.{l}."
            pre = (self.n(l, "norm_h", t[p + "w_h.weight"] @ self.h[l]) +
                   self.n(l, "norm_x", t[p + "w_x.weight"] @ inp) + t[p + "bias"])
            f, i, o, g = (pre[k * H:(k + 1) * H] for k in range(4))
            self.c[l] = torch.sigmoid(f) * self.c[l] + torch.sigmoid(i) * torch.tanh(g)
            self.h[l] = torch.sigmoid(o) * torch.tanh(self.n(l, "norm_c", self.c[l]))
            below = self.h[l]
        return t["head.weight"] @ torch.cat(self.h) + t["head.bias"]


def mixture(y, b):
    """Graves eqs. 18-22 with the bias (61-62), in MixtureDensity's layout."""
    e = 1 / (1 + torch.exp(y[:1]))
    pi = torch.softmax(y[1:1 + M] * (1 + b), 0)
    mu = y[1 + M:1 + 3 * M]
    sigma = torch.exp(y[1 + 3 * M:1 + 5 * M] - b)
    rho = torch.tanh(y[1 + 5 * M:])
    return torch.cat([e, pi, mu, sigma, rho])


def random_state_dict(kind, rng):
    f = lambda *shape, lo=-1.0, hi=1.0: torch.from_numpy(rng.uniform(lo, hi, shape).astype(np.float32))
    sd = {}
    for l in range(L):
        width = 3 if l == 0 else 3 + H
        p = f"layers.{l}."
        sd[p + "w_x.weight"] = f(4 * H, width, lo=-0.7, hi=0.7)
        sd[p + "w_h.weight"] = f(4 * H, H, lo=-0.7, hi=0.7)
        sd[p + "bias"] = f(4 * H, lo=-0.5, hi=0.5)
        if kind != "none":
            g, b = ("weight", "bias") if kind == "layer_norm" else ("scale", "offset")
            # Small recurrent gains (0.1 as Cooijmans et al. initialize theirs)
            # keep the random network contractive: a generated sequence feeds
            # every point back, and a chaotic network would amplify float32
            # rounding into different samples within 100 steps.
            for module, n, lo, hi in (("norm_x", 4 * H, 0.5, 1.0), ("norm_h", 4 * H, 0.05, 0.15),
                                      ("norm_c", H, 0.5, 1.0)):
                sd[p + module + "." + g] = f(n, lo=lo, hi=hi)
                sd[p + module + "." + b] = f(n, lo=-0.3, hi=0.3)
    sd["head.weight"] = f(W, L * H, lo=-0.8, hi=0.8)
    sd["head.bias"] = f(W, lo=-0.5, hi=0.5)
    return sd


def generate(model, seed, wobble=0.0):
    """100 steps: float64 model, params rounded to float32, reference sampler.
    `wobble` perturbs each step's ŷ by that relative amount (a sensitivity probe)."""
    model.reset()
    pen = np.zeros(3, dtype=np.float32)
    points, params, worst = [], [], 1.0
    for step in range(STEPS):
        y = model.step(torch.from_numpy(pen).double())
        y = y * (1 + wobble * torch.cos(torch.arange(W, dtype=torch.float64) + step))
        p = mixture(y, BIAS)
        point, _, margins = rs.sample_point(p.numpy().astype(np.float32), M, seed, step)
        worst = min(worst, *margins)
        points.append(point)
        params.append(p)
        pen = point
    return np.stack(points), torch.stack(params), worst


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(2013)
    x = rng.normal(0, 1, (S, 3)).astype(np.float32)
    x[:, 2] = (rng.uniform(0, 1, S) < 0.3).astype(np.float32)  # end-of-stroke bits
    for kind in ("layer_norm", "rms_norm", "prms_norm", "none"):
        name = "handwriting_" + kind
        sd = random_state_dict(kind, rng)
        model = Model(sd, kind)
        predicted = torch.stack([mixture(model.step(torch.from_numpy(r).double()), 0.0) for r in x])
        seed = 1
        while True:
            points, params, worst = generate(model, seed)
            if worst > 1e-4:
                break
            seed += 1
        # The generation must be insensitive to rounding: perturbing ŷ by 1e-6
        # relative at every step moves no point by more than 1e-5.
        wobbled, _, _ = generate(model, seed, wobble=1e-6)
        drift = float(np.abs(wobbled - points).max() / np.abs(points[:, :2]).max())
        assert drift < 1e-5, (name, drift)
        save_file(sd, os.path.join(OUT, name + ".safetensors"))
        config = {"architecture": "handwriting", "norm": kind, "hidden_size": H,
                  "num_layers": L, "components": M, "graph": "sample", "seed": seed,
                  "max_sequence_length": 16}
        if kind == "prms_norm":
            config["p"] = P
        with open(os.path.join(OUT, name + ".json"), "w") as f:
            json.dump(config, f, indent=1)
        save_file({"x": torch.from_numpy(x), "params": predicted.contiguous(),
                   "generated_points": torch.from_numpy(points),
                   "generated_params": params.contiguous(),
                   "bias": torch.tensor([BIAS], dtype=torch.float32)},
                  os.path.join(OUT, name + ".io.safetensors"))
        print(name, "seed", seed, "smallest margin", worst, "drift under 1e-6", drift,
              "end-of-stroke points", int(points[:, 2].sum()))
    # The sampler alone: random valid mixtures, float32.
    seed = 0xC0FFEE0123456789  # the top bit set: all 64 bits matter
    mixtures = []
    for _ in range(STEPS):
        y = torch.from_numpy(rng.normal(0, 1.5, W))
        mixtures.append(mixture(y, 0.0).numpy().astype(np.float32))
    mixtures = np.stack(mixtures)
    points = np.stack([rs.sample_point(mixtures[t], M, seed, t)[0] for t in range(STEPS)])
    save_file({"params": torch.from_numpy(mixtures), "points": torch.from_numpy(points),
               # the seed's low and high 32 bits, as int32 bit patterns
               "seed": torch.from_numpy(np.array([seed & 0xFFFFFFFF, seed >> 32],
                                                 dtype=np.uint32).view(np.int32)),
               "components": torch.tensor([M], dtype=torch.int32)},
              os.path.join(OUT, "sampler.io.safetensors"))
    print("sampler: eos count", int(points[:, 2].sum()), "of", STEPS)


if __name__ == "__main__":
    main()
