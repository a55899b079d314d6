#!/usr/bin/env python3
"""Writes the fixtures of test_torch_transformer (docs/torch_transformer.md).

Each fixture is a tiny random-weight encoder-decoder made of PyTorch's own
modules: nn.Embedding (source and target tokens, one learned position table
shared by both), nn.Transformer (batch_first, dropout 0, eval mode) and an
output nn.Linear "generator". The RMSNorm/pRMSNorm cases swap a small
RMSNorm module (below) into every norm1/norm2/norm3 and the final norms;
the "_nofinal" case has no final encoder and decoder norms.

Files per case <name>:
  <name>.safetensors           the state_dict, stored as BF16 (small files;
                               the reference uses exactly these values, so
                               the builder's bf16 matrices are exact too)
  <name>.expected.safetensors  src_ids i32 [6], tgt_ids i32 [5], logits f32
                               [5, vocab] (teacher forcing with a causal
                               target mask), greedy_ids i32 [G] (greedy
                               decoding from tgt_ids[0]), all computed by
                               PyTorch in float64 from the stored weights.

Run with Debian's python3-torch: /usr/bin/python3 make_fixtures.py
"""
import json
import os
import sys

import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "tools"))
from export_torch import save_safetensors  # noqa: E402

VOCAB, D_MODEL, NHEAD, FF, LAYERS, MAX_POS = 50, 32, 4, 64, 2, 16
GREEDY_STEPS = 8


class RMSNorm(nn.Module):
    """RMSNorm (Zhang & Sennrich 2019) with a gain only; p < 1 is pRMSNorm:
    the RMS of the first int(d * p) elements scales the whole row.
    eps_added: rms + eps (the paper's code), else sqrt(mean + eps)."""

    def __init__(self, d, p=1.0, eps=1e-6, eps_added=False):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.k = int(d * p)
        self.eps = eps  # TransformerEncoder reads norm1.eps (fast-path check)
        self.eps_added = eps_added
        # Read (not used) by the fast-path checks of TransformerEncoderLayer.
        self.register_buffer("bias", torch.zeros(d), persistent=False)
        self.calls = 0


    def forward(self, x):
        self.calls += 1
        ms = x[..., : self.k].pow(2).mean(-1, keepdim=True)
        rms = ms.sqrt() + self.eps if self.eps_added else (ms + self.eps).sqrt()
        return x / rms * self.weight


class Seq2Seq(nn.Module):
    def __init__(self, activation, norm_first):
        super().__init__()
        self.src_embedding = nn.Embedding(VOCAB, D_MODEL)
        self.tgt_embedding = nn.Embedding(VOCAB, D_MODEL)
        self.pos_embedding = nn.Embedding(MAX_POS, D_MODEL)
        self.transformer = nn.Transformer(
            d_model=D_MODEL, nhead=NHEAD, num_encoder_layers=LAYERS,
            num_decoder_layers=LAYERS, dim_feedforward=FF, dropout=0.0,
            activation=activation, batch_first=True, norm_first=norm_first)
        self.generator = nn.Linear(D_MODEL, VOCAB)

    def embed(self, table, ids):
        positions = torch.arange(ids.shape[1])
        return table(ids) + self.pos_embedding(positions)[None]

    def forward(self, src, tgt):
        mask = self.transformer.generate_square_subsequent_mask(tgt.shape[1]).to(
            self.generator.weight.dtype)
        h = self.transformer(self.embed(self.src_embedding, src),
                             self.embed(self.tgt_embedding, tgt), tgt_mask=mask)
        return self.generator(h)


def swap_norms(model, make):
    t = model.transformer
    for layer in list(t.encoder.layers) + list(t.decoder.layers):
        for attr in ("norm1", "norm2", "norm3"):
            if hasattr(layer, attr):
                setattr(layer, attr, make())
    t.encoder.norm = make()
    t.decoder.norm = make()


# normrt-convert's config keys for each case's norm (docs/torch_transformer.md).
NORM_KEYS = {
    "post_ln_relu": {"norm": "layer_norm", "eps": 1e-5},
    "pre_ln_gelu": {"norm": "layer_norm", "eps": 1e-5},
    "pre_rms_gelu": {"norm": "rms_norm", "eps": 1e-6},
    "post_prms_gelu_nofinal": {"norm": "prms_norm", "p": 0.25, "eps": 1e-8,
                               "eps_placement": "added_to_rms"},
}


def normrt_config(name, activation, norm_first, source_length):
    """<name>.config.json: the model above in normrt-convert's torch_transformer config."""
    final = not name.endswith("_nofinal")
    config = {"architecture": "torch_transformer", "src_vocab_size": VOCAB,
              "tgt_vocab_size": VOCAB, "d_model": D_MODEL, "nhead": NHEAD,
              "num_encoder_layers": LAYERS, "num_decoder_layers": LAYERS,
              "dim_feedforward": FF, "max_positions": MAX_POS, "norm_first": norm_first,
              "activation": activation, "encoder_final_norm": final,
              "decoder_final_norm": final}
    config.update(NORM_KEYS[name])
    config.update(source_length=source_length, kv_cache=True)
    return config


CASES = [
    # name, activation, norm_first, norm factory (None: nn.LayerNorm)
    ("post_ln_relu", "relu", False, None),
    ("pre_ln_gelu", "gelu", True, None),
    ("pre_rms_gelu", "gelu", True, lambda: RMSNorm(D_MODEL, 1.0, 1e-6, False)),
    ("post_prms_gelu_nofinal", "gelu", False, lambda: RMSNorm(D_MODEL, 0.25, 1e-8, True)),
]


def randomize(model, generator):
    with torch.no_grad():
        for name, p in model.named_parameters():
            noise = torch.randn(p.shape, generator=generator, dtype=torch.float64)
            if "norm" in name and name.endswith("weight"):
                p.copy_(1 + 0.2 * noise)
            elif name.endswith("bias"):
                p.copy_(0.1 * noise)
            elif "embedding" in name:
                p.copy_(noise)
            else:  # [out, in]: unit-scale outputs
                p.copy_(noise / p.shape[-1] ** 0.5)
            p.copy_(p.to(torch.bfloat16).to(p.dtype))  # exactly the stored values


def greedy(model, src, first, steps):
    ids = [first]
    for _ in range(steps - 1):
        logits = model(src, torch.tensor([ids]))
        ids.append(int(logits[0, -1].argmax()))
    return ids


def main():
    torch.manual_seed(0)
    src = torch.tensor([[3, 17, 42, 8, 0, 49]])
    tgt = torch.tensor([[1, 25, 7, 33, 12]])
    for index, (name, activation, norm_first, make) in enumerate(CASES):
        model = Seq2Seq(activation, norm_first)
        if make is not None:
            swap_norms(model, make)
        if name.endswith("_nofinal"):  # post-norm layers end in a norm already
            model.transformer.encoder.norm = None
            model.transformer.decoder.norm = None
        model = model.double().eval()
        randomize(model, torch.Generator().manual_seed(100 + index))
        # Grad stays enabled: PyTorch's fused fast path (which would bypass a
        # swapped-in norm) is off when parameters require grad.
        logits = model(src, tgt).detach()
        if make is not None:  # every swapped-in norm ran (no fused fast path)
            calls = [m.calls for m in model.modules() if isinstance(m, RMSNorm)]
            finals = 0 if name.endswith("_nofinal") else 2
            assert len(calls) == 5 * LAYERS + finals and min(calls) == 1, calls
        ids = greedy(model, src, int(tgt[0, 0]), GREEDY_STEPS)
        state = {k: v.detach().to(torch.bfloat16) for k, v in model.state_dict().items()}
        save_safetensors(os.path.join(HERE, name + ".safetensors"), state)
        expected = {
            "src_ids": src[0].to(torch.int32),
            "tgt_ids": tgt[0].to(torch.int32),
            "logits": logits[0].to(torch.float32),
            "greedy_ids": torch.tensor(ids, dtype=torch.int32),
        }
        save_safetensors(os.path.join(HERE, name + ".expected.safetensors"), expected)
        with open(os.path.join(HERE, name + ".config.json"), "w") as f:
            json.dump(normrt_config(name, activation, norm_first, src.shape[1]), f, indent=2)
            f.write("\n")
        print(name, "max|logits| %.3f" % float(logits.abs().max()), "greedy", ids)


if __name__ == "__main__":
    main()
