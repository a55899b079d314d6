#!/usr/bin/env python3
"""Writes the tiny Llama fixtures test_llama_decoder reads.

Run with the venv that has transformers (/work/venv/bin/python). For each
fixture <name>: <name>.safetensors (the LlamaForCausalLM state dict, float32),
<name>.config.json (HF's config.json) and <name>.expected.txt:

  prompt <n> ids...
  generated <m> ids...            greedy continuation by HF with use_cache
  <variant>.prompt_logits <n> <vocab> values...   one run over the prompt
  <variant>.decode_logits <m> <vocab> values...   feeding generated[i] after
                                                  prompt + generated[:i]
  <variant>.generated <m> ids...
  <variant>.min_margin <x>        smallest top-1 minus top-2 logit seen

Variants: "f32" (the stored weights, run in float64) and "bf16" (every
matrix, embeddings included, rounded to bfloat16 first, as normrt stores bf16
matrices; norm gains unchanged; still run in float64). The weights are drawn
with larger scales than HF's init (std 0.02 gives near-zero logits and
arbitrary greedy ties); the seed is kept only if every greedy step has a
clear margin, so float32 rounding cannot change a token.

Norm variants (<name>.norms.expected.txt, same format; the weights are
<name>.safetensors as committed, read back, not regenerated): the same model
with every LlamaRMSNorm replaced by what normrt's LlamaBuildOptions{norm =
"layer_norm" | "prms_norm", p} graph computes with the RMSNorm's gain, eps =
rms_norm_eps inside the sqrt, no bias (the builder passes none: bias 0):
  layer_norm: (x - mean) / sqrt(biased var + eps) * g
  prms_norm:  x / sqrt(mean(x[:k]^2) + eps) * g,  k = int(d * 0.25)
Variants layer_norm_f32, layer_norm_bf16, prms_norm_f32, prms_norm_bf16
(bf16: matrices rounded as above), all in float64 throughout (HF's own
LlamaRMSNorm computes in float32; the replacements do not). `--norms-only`
writes only these files.
"""
import argparse
import json
import os

import torch
from safetensors.torch import load_file, save_file
from transformers import LlamaConfig, LlamaForCausalLM

HERE = os.path.dirname(os.path.abspath(__file__))
PROMPT = [3, 41, 7, 88, 12, 0, 96]
STEPS = 8


def make_model(seed, tie):
    torch.manual_seed(seed)
    config = LlamaConfig(vocab_size=97, hidden_size=32, intermediate_size=64,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                         max_position_embeddings=64, rms_norm_eps=1e-5, rope_theta=10000.0,
                         tie_word_embeddings=tie, hidden_act="silu", attention_bias=False,
                         mlp_bias=False)
    model = LlamaForCausalLM(config).eval()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() == 1:  # RMSNorm gains around 1
                p.copy_(1.0 + 0.2 * torch.randn_like(p))
            else:
                p.copy_(torch.randn_like(p) / p.shape[-1] ** 0.5 * 1.5)
    return config, model


def run(model):
    """Prompt logits, greedy ids and the logits of each decode step (float64)."""
    with torch.no_grad():
        out = model(torch.tensor([PROMPT]), use_cache=True)
        prompt_logits = out.logits[0]
        past = out.past_key_values
        margins = []

        def pick(row):
            top = torch.topk(row, 2).values
            margins.append(float(top[0] - top[1]))
            return int(torch.argmax(row))

        ids = [pick(prompt_logits[-1])]
        decode = []
        for step in range(STEPS):
            out = model(torch.tensor([[ids[step]]]), past_key_values=past, use_cache=True)
            past = out.past_key_values
            decode.append(out.logits[0, -1])
            if step + 1 < STEPS:
                ids.append(pick(decode[-1]))
        return prompt_logits, ids, torch.stack(decode), min(margins)


def bf16_rounded(model):
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() >= 2:
                p.copy_(p.to(torch.bfloat16).to(p.dtype))
    return model


def rows(name, tensor):
    t = tensor.double()
    lines = [f"{name} {t.shape[0]} {t.shape[1]}"]
    for r in t:
        lines.append(" ".join(f"{v:.10g}" for v in r.tolist()))
    return lines


def write(name, seed, tie):
    config, model = make_model(seed, tie)
    state = {k: v.detach().clone().contiguous() for k, v in model.state_dict().items()}
    if tie:
        del state["lm_head.weight"]  # HF's tied checkpoints omit it
    save_file(state, os.path.join(HERE, name + ".safetensors"))
    with open(os.path.join(HERE, name + ".config.json"), "w") as f:
        json.dump(json.loads(config.to_json_string()), f, indent=2, sort_keys=True)
    lines = ["prompt %d %s" % (len(PROMPT), " ".join(map(str, PROMPT)))]
    for variant in ("f32", "bf16"):
        m = make_model(seed, tie)[1].double()
        if variant == "bf16":
            bf16_rounded(m)
        prompt_logits, ids, decode, margin = run(m)
        if margin < 0.05:
            raise SystemExit(f"{name}/{variant}: greedy margin {margin} too small, pick another seed")
        lines.append(f"{variant}.generated {len(ids)} " + " ".join(map(str, ids)))
        lines.append(f"{variant}.min_margin {margin:.6g}")
        lines += rows(f"{variant}.prompt_logits", prompt_logits)
        lines += rows(f"{variant}.decode_logits", decode)
    with open(os.path.join(HERE, name + ".expected.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print(name, "written")


PRMS_P = 0.25


class NormLikeNormrt(torch.nn.Module):
    """normrt's layer_norm / prms_norm in place of a LlamaRMSNorm: its gain, no
    bias, eps inside the sqrt, float64 throughout."""

    def __init__(self, rms_norm, kind):
        super().__init__()
        self.weight = rms_norm.weight
        self.eps = rms_norm.variance_epsilon
        self.kind = kind
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        if self.kind == "layer_norm":
            centered = x - x.mean(-1, keepdim=True)
            return centered / torch.sqrt(centered.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight
        k = int(x.shape[-1] * PRMS_P)
        return x / torch.sqrt(x[..., :k].pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def swap_norms(model, kind):
    swapped = []
    for module in list(model.modules()):
        for child_name, child in list(module.named_children()):
            if type(child).__name__ == "LlamaRMSNorm":
                replacement = NormLikeNormrt(child, kind)
                setattr(module, child_name, replacement)
                swapped.append(replacement)
    return swapped


def write_norm_variants(name, seed, tie):
    """<name>.norms.expected.txt from the committed <name>.safetensors."""
    stored = load_file(os.path.join(HERE, name + ".safetensors"))
    lines = ["prompt %d %s" % (len(PROMPT), " ".join(map(str, PROMPT)))]
    for kind in ("layer_norm", "prms_norm"):
        for dtype in ("f32", "bf16"):
            config, m = make_model(seed, tie)
            missing, unexpected = m.load_state_dict(stored, strict=False)
            assert not unexpected and missing == (["lm_head.weight"] if tie else []), (missing, unexpected)
            m = m.double()
            if dtype == "bf16":
                bf16_rounded(m)
            swapped = swap_norms(m, kind)
            assert len(swapped) == 2 * config.num_hidden_layers + 1
            prompt_logits, ids, decode, margin = run(m)
            # Every replacement ran once per forward (the prompt, STEPS decodes).
            assert all(n.calls == 1 + STEPS for n in swapped), [n.calls for n in swapped]
            # The weights are fixed here (no seed to re-pick): 0.01 is still
            # far above the 1e-4 * max|logit| (~5e-4) the test allows.
            if margin < 0.01:
                raise SystemExit(f"{name}/{kind}_{dtype}: greedy margin {margin} too small")
            variant = f"{kind}_{dtype}"
            lines.append(f"{variant}.generated {len(ids)} " + " ".join(map(str, ids)))
            lines.append(f"{variant}.min_margin {margin:.6g}")
            lines += rows(f"{variant}.prompt_logits", prompt_logits)
            lines += rows(f"{variant}.decode_logits", decode)
    with open(os.path.join(HERE, name + ".norms.expected.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print(name, "norm variants written")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--norms-only", action="store_true",
                        help="write only <name>.norms.expected.txt")
    args = parser.parse_args()
    for name, seed, tie in (("tiny_llama", 1, False), ("tiny_llama_tied", 3, True)):
        if not args.norms_only:
            write(name, seed=seed, tie=tie)
        write_norm_variants(name, seed, tie)
