#!/usr/bin/env python3
"""Fixtures of test_models_order: tiny random order-embedding models (Vendrov
et al. 2016; ivendrov/order-embedding model.py: build_sentence_encoder,
build_image_encoder, hierarchical_errors with norm 2) with the RMSNorm
authors' rlngru sentence encoder (bzhangGo/rmsnorm layers.py, rlngru_layer),
its LayerNorm twin lngru, normrt's pRMSNorm variant and the plain gru_layer;
the outputs computed here in PyTorch float64 from the equations
(docs/order_embeddings.md).

Each model is written as the Theano code's .npz (x·W matrices; prefix
'encoder' for the GRU, 'ff_image' for the image encoder, 'Wemb') and as the
PyTorch port's state_dict in safetensors. Run with /work/venv/bin/python.
"""
import json
import os

import numpy as np
import torch
from safetensors.torch import save_file

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fixtures")
EPS = 1e-5  # layers.py: rln and ln
P = 0.25
V, E, D, F, B, S = 19, 6, 8, 10, 3, 7


def norm(x, kind, gain, bias):
    if kind == "none":
        return x
    if kind == "layer_norm":
        mu = x.mean()
        return (x - mu) / torch.sqrt(((x - mu) ** 2).mean() + EPS) * gain + bias
    stat = x[: int(x.numel() * P)] if kind == "prms_norm" else x
    return x / torch.sqrt((stat * stat).mean() + EPS) * gain


def l2norm(x):  # utils.l2norm: X / sqrt((X**2).sum(axis=1))
    return x / torch.sqrt((x * x).sum())


def model(p, kind, ids, images):
    t = {k: torch.tensor(v, dtype=torch.float64) for k, v in p.items()}
    g = lambda name: t.get("encoder_" + name)
    h = torch.zeros(D, dtype=torch.float64)
    for w in t["Wemb"][ids]:
        x_ = norm(w @ g("W") + g("b"), kind, g("s1"), g("b1"))
        xx_ = norm(w @ g("Wx") + g("bx"), kind, g("s2"), g("b2"))
        pre = norm(h @ g("U"), kind, g("s3"), g("b3")) + x_
        r, u = torch.sigmoid(pre[:D]), torch.sigmoid(pre[D:])
        cand = torch.tanh(norm(h @ g("Ux"), kind, g("s4"), g("b4")) * r + xx_)
        h = u * h + (1 - u) * cand
    sentence = l2norm(torch.abs(h))  # build_sentence_encoder: abs, then l2norm
    im = torch.tensor(images, dtype=torch.float64) @ t["ff_image_W"] + t["ff_image_b"]
    im = torch.abs(im / torch.sqrt((im * im).sum(1, keepdim=True)))  # l2norm, then abs
    errors = (torch.clamp(sentence[None, :] - im, min=0) ** 2).sum(1)
    return sentence[None, :], im, errors[None, :]


def random_params(kind, rng):
    f32 = lambda *shape, lo=-1.0, hi=1.0: rng.uniform(lo, hi, shape).astype(np.float32)
    p = {"Wemb": f32(V, E),
         "encoder_W": f32(E, 2 * D, lo=-0.8, hi=0.8), "encoder_b": f32(2 * D, lo=-0.5, hi=0.5),
         "encoder_U": f32(D, 2 * D, lo=-0.8, hi=0.8),
         "encoder_Wx": f32(E, D, lo=-0.8, hi=0.8), "encoder_Ux": f32(D, D, lo=-0.8, hi=0.8),
         "encoder_bx": f32(D, lo=-0.5, hi=0.5),
         "ff_image_W": f32(F, D), "ff_image_b": f32(D, lo=-0.3, hi=0.3)}
    widths = {"1": 2 * D, "2": D, "3": 2 * D, "4": D}
    if kind != "none":
        for k, n in widths.items():
            p["encoder_s" + k] = f32(n, lo=0.5, hi=1.5)
    if kind == "layer_norm":
        for k, n in widths.items():
            p["encoder_b" + k] = f32(n, lo=-0.3, hi=0.3)
    return p


def torch_state_dict(p, kind):
    t = lambda a: torch.from_numpy(np.ascontiguousarray(a))
    sd = {"embedding.weight": t(p["Wemb"]),
          "encoder.input_gates.weight": t(p["encoder_W"].T),
          "encoder.input_gates.bias": t(p["encoder_b"]),
          "encoder.input_candidate.weight": t(p["encoder_Wx"].T),
          "encoder.input_candidate.bias": t(p["encoder_bx"]),
          "encoder.hidden_gates.weight": t(p["encoder_U"].T),
          "encoder.hidden_candidate.weight": t(p["encoder_Ux"].T),
          "image.weight": t(p["ff_image_W"].T), "image.bias": t(p["ff_image_b"])}
    gain = "weight" if kind == "layer_norm" else "scale"
    names = {"1": "norm_input_gates", "2": "norm_input_candidate", "3": "norm_hidden_gates",
             "4": "norm_hidden_candidate"}
    if kind != "none":
        for k, m in names.items():
            sd[f"encoder.{m}.{gain}"] = t(p["encoder_s" + k])
            if kind == "layer_norm":
                sd[f"encoder.{m}.bias"] = t(p["encoder_b" + k])
    return sd


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(2016)
    ids = rng.integers(0, V, S).astype(np.int32)
    images = rng.uniform(0, 2, (B, F)).astype(np.float32)  # ReLU-like CNN features
    for kind in ("rms_norm", "layer_norm", "prms_norm", "none"):
        name = "order_" + kind
        p = random_params(kind, rng)
        sentence, im, errors = model(p, kind, torch.from_numpy(ids).long(), images)
        np.savez(os.path.join(OUT, name + ".npz"), **p)
        save_file(torch_state_dict(p, kind), os.path.join(OUT, name + ".safetensors"))
        config = {"architecture": "order_embeddings", "norm": kind, "vocab_size": V,
                  "word_size": E, "dim": D, "image_size": F, "num_images": B,
                  "max_sentence_length": 12}
        if kind == "prms_norm":
            config["p"] = P
        with open(os.path.join(OUT, name + ".json"), "w") as f:
            json.dump(config, f, indent=1)
        save_file({"ids": torch.from_numpy(ids), "images": torch.from_numpy(images),
                   "sentence": sentence.contiguous(), "image_embeddings": im.contiguous(),
                   "order_violation": errors.contiguous()},
                  os.path.join(OUT, name + ".io.safetensors"))
        print(name, "order violation", errors.numpy().round(5))


if __name__ == "__main__":
    main()
