#!/usr/bin/env python3
"""Writes the tiny random-weight BERT fixtures of test_bert_encoder.

Each fixture is a Hugging Face BertModel with a tiny BertConfig and random
weights (PyTorch's own module, transformers.BertModel), saved as safetensors,
plus <name>.expected.txt: the config, token ids and the model's outputs
computed by PyTorch in float64 from exactly the stored weights:

  config <vocab> <hidden> <layers> <heads> <intermediate> <act> <max_pos> <type_vocab> <eps> <prefix>
  ids <n> <id...>                      (the first S of them form each case)
  <output> <S> <rows> <cols> <values...>

Outputs: last_hidden_state for S = 7 and S = 1, the sentence embedding
(mean over tokens, F.normalize) for S = 7, and bf16_last_hidden_state: the
same with every matrix the builder stores as bfloat16 (Linear weights, word
and position tables; not the token type row, which it keeps in f32) rounded
to bfloat16 first, so the bf16 path is checked at float tolerance too.

Norm variants (<name>.norms.expected.txt, same line format; the weights
are <name>.safetensors as committed, read back, not regenerated): the same
BertModel with every nn.LayerNorm replaced by what normrt's
BertBuildOptions{norm = "rms_norm" | "prms_norm", p} graph computes — the
LayerNorm's gain only (its bias is dropped), eps = layer_norm_eps inside the
sqrt, the residual added before the norm as BERT does; pRMSNorm takes the
mean square over the first int(d * p) elements and scales all d:

  config ... / ids ...                 (as above)
  <norm>.<output> <S> <rows> <cols> <values...>
  with <norm> = rms_norm or prms_norm (p = 0.25) and <output> =
  last_hidden_state (S = 7, 1) or bf16_last_hidden_state (S = 7).

Run with a Python that has torch, transformers and safetensors
(/work/venv/bin/python make_tiny_bert_fixtures.py); writes next to itself.
`--norms-only` writes only the norm variants (the base fixtures stay as
committed).
"""
import argparse
import os

import torch
import torch.nn.functional as F
from safetensors.torch import load_file, save_file
from transformers import BertConfig, BertModel

HERE = os.path.dirname(os.path.abspath(__file__))

FIXTURES = [
    # name, hidden_act, stored dtype, tensor name prefix
    ("tiny_bert_gelu", "gelu", torch.float32, ""),
    ("tiny_bert_tanh", "gelu_new", torch.float16, "bert."),
]


def randomize(model, generator):
    """Weights of unit-scale activations (HF's 0.02 init would leave the
    encoder close to its LayerNorm biases)."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            noise = torch.randn(p.shape, generator=generator, dtype=torch.float64)
            if name.endswith("LayerNorm.weight"):
                p.copy_(1 + 0.2 * noise)
            elif name.endswith("bias"):
                p.copy_(0.1 * noise)
            elif "embeddings" in name:
                p.copy_(noise)
            else:  # [out, in]
                p.copy_(noise / p.shape[1] ** 0.5)


def run(model, ids):
    with torch.no_grad():
        return model(input_ids=torch.tensor([ids])).last_hidden_state[0]


def write_values(out, name, s, tensor):
    rows, cols = tensor.shape
    values = " ".join(repr(float(v)) for v in tensor.reshape(-1).tolist())
    out.write(f"{name} {s} {rows} {cols} {values}\n")


class RmsNormLikeNormrt(torch.nn.Module):
    """normrt's rms_norm / prms_norm in place of a BERT LayerNorm: gain only,
    x / sqrt(mean(x[:k]^2) + eps) * g with k = int(d * p) (d for RMSNorm)."""

    def __init__(self, layer_norm, p):
        super().__init__()
        self.weight = layer_norm.weight  # the checkpoint's gain; its bias is dropped
        self.eps = layer_norm.eps
        self.p = p
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        d = x.shape[-1]
        k = int(d * self.p) if self.p else d
        mean_square = x[..., :k].pow(2).mean(-1, keepdim=True)
        return x / torch.sqrt(mean_square + self.eps) * self.weight


def swap_layer_norms(model, p):
    swapped = []
    for name, module in list(model.named_modules()):
        for child_name, child in list(module.named_children()):
            if isinstance(child, torch.nn.LayerNorm):
                replacement = RmsNormLikeNormrt(child, p)
                setattr(module, child_name, replacement)
                swapped.append(replacement)
    return swapped


def run_counted(model, swapped, ids):
    """run(), asserting that every swapped-in norm ran exactly once."""
    before = [m.calls for m in swapped]
    out = run(model, ids)
    assert all(m.calls == b + 1 for m, b in zip(swapped, before)), "a swapped norm was bypassed"
    return out


def write_norm_variants(name, act, prefix):
    """<name>.norms.expected.txt from the committed <name>.safetensors."""
    stored = load_file(os.path.join(HERE, name + ".safetensors"))
    state = {k[len(prefix):]: v.to(torch.float64) for k, v in stored.items()}
    with open(os.path.join(HERE, name + ".expected.txt")) as f:
        header = [line for line in f if line.startswith(("config ", "ids "))]
    ids = [int(v) for v in header[1].split()[2:]]
    config = BertConfig(vocab_size=64, hidden_size=32, num_hidden_layers=2,
                        num_attention_heads=4, intermediate_size=37, hidden_act=act,
                        max_position_embeddings=40, type_vocab_size=2,
                        layer_norm_eps=1e-12, hidden_dropout_prob=0.0,
                        attention_probs_dropout_prob=0.0)
    with open(os.path.join(HERE, name + ".norms.expected.txt"), "w") as out:
        out.writelines(header)
        for norm, p in (("rms_norm", 0.0), ("prms_norm", 0.25)):
            model = BertModel(config).eval().double()
            missing, unexpected = model.load_state_dict(state, strict=False)
            assert not unexpected and all("position_ids" in k for k in missing), (missing, unexpected)
            swapped = swap_layer_norms(model, p)
            assert len(swapped) == 1 + 2 * config.num_hidden_layers
            write_values(out, norm + ".last_hidden_state", 7, run_counted(model, swapped, ids))
            write_values(out, norm + ".last_hidden_state", 1,
                         run_counted(model, swapped, ids[:1]))
            with torch.no_grad():
                for k, param in model.named_parameters():
                    if param.dim() == 2 and "token_type" not in k:
                        param.copy_(param.to(torch.bfloat16).to(torch.float64))
            write_values(out, norm + ".bf16_last_hidden_state", 7,
                         run_counted(model, swapped, ids))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--norms-only", action="store_true",
                        help="write only <name>.norms.expected.txt")
    args = parser.parse_args()
    if not args.norms_only:
        write_base_fixtures()
    for name, act, _, prefix in FIXTURES:
        write_norm_variants(name, act, prefix)


def write_base_fixtures():
    for index, (name, act, dtype, prefix) in enumerate(FIXTURES):
        generator = torch.Generator().manual_seed(1234 + index)
        config = BertConfig(vocab_size=64, hidden_size=32, num_hidden_layers=2,
                            num_attention_heads=4, intermediate_size=37, hidden_act=act,
                            max_position_embeddings=40, type_vocab_size=2,
                            layer_norm_eps=1e-12, hidden_dropout_prob=0.0,
                            attention_probs_dropout_prob=0.0)
        model = BertModel(config).eval()
        randomize(model, generator)
        # Store in `dtype`; the reference uses exactly the stored values.
        state = {k: v.detach().to(dtype).contiguous() for k, v in model.state_dict().items()
                 if k != "embeddings.position_ids"}
        save_file({prefix + k: v for k, v in state.items()},
                  os.path.join(HERE, name + ".safetensors"))
        model.load_state_dict({k: v.to(torch.float32) for k, v in state.items()}, strict=False)
        model = model.double()

        ids = torch.randint(0, 64, (7,), generator=generator).tolist()
        with open(os.path.join(HERE, name + ".expected.txt"), "w") as out:
            out.write(f"config 64 32 2 4 37 {act} 40 2 1e-12 {prefix or '-'}\n")
            out.write("ids 7 " + " ".join(map(str, ids)) + "\n")
            full = run(model, ids)
            write_values(out, "last_hidden_state", 7, full)
            write_values(out, "last_hidden_state", 1, run(model, ids[:1]))
            write_values(out, "embedding", 7, F.normalize(full.mean(0, keepdim=True), dim=-1))
            with torch.no_grad():
                for k, p in model.named_parameters():
                    if p.dim() == 2 and "token_type" not in k:
                        p.copy_(p.to(torch.bfloat16).to(torch.float64))
            write_values(out, "bf16_last_hidden_state", 7, run(model, ids))


if __name__ == "__main__":
    main()
