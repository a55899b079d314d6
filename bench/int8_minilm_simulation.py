#!/usr/bin/env python3
"""Which int8 scheme keeps all-MiniLM-L6-v2 at worst cosine >= 0.999 with every matrix int8.

Fake-quantizes the nn.Linear layers of the real model exactly as normrt's int8
kernels do (kernels/linear/linear_int8.h): weights per output row, symmetric,
q = clamp(rne(w * (127 / max|w|)), +-127) in float32; x per row either the
same ("plain", the kernels before 2026-11-26) or asymmetric with a zero point
("asym", the kernels' formula since); the integer dot product exact;
y = acc * (sx * sw) + b. Then it measures the
mean-pooled, normalized sentence embedding against the float32 model over
bench/peer_sentences.txt (worst and mean cosine), for these schemes:

  plain       x symmetric, as the weights (the kernels before 2026-11-26)
  smooth-A    per-input-channel smoothing inside the row quantization: the
              kernel quantizes x_j * (1/s_j) per row and packs W[:, j] * s_j,
              s_j = max|X_j|^A / max|W[:, j]|^(1 - A); max|X_j| from a
              calibration pass (data-free: seeded random token ids of the
              vocabulary; or, for comparison, the evaluated sentences)
  asym        x per row asymmetric: 255 levels over [min(0, min x),
              max(0, max x)], an integer zero point (the kernels' formula)
  smooth+asym both
  (c) others, cheap or not at run time, to locate the error: weights only
      int8 (x float), x only int8; per-group scales of 32/64/128 along k for
      x and/or W (a different kernel: one float FMA per group and output);
      the top-t input channels by calibrated max|X_j| kept float
      (LLM.int8-style decomposition); GPTQ rounding of the weights (Hessian
      from the random-id calibration; conversion only); and mixes that keep
      some kinds float (what "nearly every matrix int8" can reach).

and, per layer kind (query, key, value, attention output, FFN up, FFN down),
the error of quantizing that kind alone. Results go to stdout as Markdown
tables (docs/int8.md quotes them). CPU only, 10-20 minutes on a loaded core.

Usage: python bench/int8_minilm_simulation.py [--model DIR] [--calib-seqs 16]
       [--calib-len 128] [--seed 0]
"""
import argparse
import os
import sys

import numpy as np
import torch
from transformers import AutoModel, AutoTokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = {
    "query": "attention.self.query",
    "key": "attention.self.key",
    "value": "attention.self.value",
    "attn-out": "attention.output.dense",
    "ffn-up": "intermediate.dense",
    "ffn-down": "output.dense",
}


def kind_of(name):
    for kind, suffix in KINDS.items():
        if name.endswith(suffix) and (kind != "ffn-down" or "attention" not in name):
            return kind
    return None


def quantize_rows_sym(v):
    """Per row (last axis), symmetric int8, float32 arithmetic as the kernels."""
    v = v.to(torch.float32)
    amax = v.abs().amax(dim=-1, keepdim=True)
    tiny = amax < 127.0 * np.finfo(np.float32).tiny
    safe = torch.where(tiny, torch.ones_like(amax), amax)
    inverse = torch.where(tiny, torch.zeros_like(amax), torch.tensor(127.0) / safe)
    q = torch.clamp(torch.round(v * inverse), -127, 127)  # torch.round: ties to even
    scale = torch.where(tiny, torch.zeros_like(amax), amax / 127.0)
    return q, scale


def quantize_rows_asym(v):
    """Per row asymmetric, as the kernels: q - z and the scale (linear_int8.h)."""
    v = v.to(torch.float32)
    lo = torch.clamp(v.amin(dim=-1, keepdim=True), max=0)
    hi = torch.clamp(v.amax(dim=-1, keepdim=True), min=0)
    span = hi.double() - lo.double()  # in double, each result rounded to float once
    tiny = span < 254.0 * np.finfo(np.float32).tiny
    safe = torch.where(tiny, torch.ones_like(span), span)
    scale = torch.where(tiny, torch.zeros_like(span), safe / 254.0).to(torch.float32)
    inverse = torch.where(tiny, torch.zeros_like(span), 254.0 / safe).to(torch.float32)
    zero = torch.clamp(-127 - torch.round(lo * inverse), -127, 127)  # torch.round: ties to even
    q = torch.clamp(torch.round(v * inverse) + zero, -127, 127)
    return q - zero, scale


class FakeInt8Linear(torch.nn.Module):
    """y = (qx . qw) * sx * sw + b, the integer sum exact (float64)."""

    def __init__(self, linear, inv_smooth=None, asym=False):
        super().__init__()
        w = linear.weight.detach().to(torch.float32)
        self.inv_smooth = inv_smooth
        if inv_smooth is not None:
            w = w * (1.0 / inv_smooth)[None, :]  # W[:, j] * s_j
        qw, sw = quantize_rows_sym(w)
        self.qw = qw.to(torch.float64)
        self.sw = sw.reshape(-1).to(torch.float64)
        self.bias = linear.bias.detach().to(torch.float64)
        self.asym = asym

    def forward(self, x):
        if self.inv_smooth is not None:
            x = x * self.inv_smooth  # one float32 product per element
        qx, sx = quantize_rows_asym(x) if self.asym else quantize_rows_sym(x)
        acc = qx.to(torch.float64) @ self.qw.T
        y = acc * sx.to(torch.float64) * self.sw + self.bias
        return y.to(torch.float32)


def quantize_groups_sym(v, group):
    """Symmetric int8 per group of `group` consecutive k (per row), dequantized."""
    if not group:
        q, scale = quantize_rows_sym(v)
        return q * scale
    shape = v.shape
    q, scale = quantize_rows_sym(v.reshape(*shape[:-1], shape[-1] // group, group))
    return (q * scale).reshape(shape)


def gptq_rows(w, x, damp=0.01):
    """GPTQ (Frantar et al. 2022) with the kernels' per-row scales: quantizes the
    columns of W in order, spreading each column's rounding error over the later
    ones through the inverse Hessian of the calibration inputs x (rows, k)."""
    w = w.to(torch.float64).clone()
    scale = w.abs().amax(dim=1) / 127
    scale[scale == 0] = 1
    h = x.T @ x
    h += damp * h.diag().mean() * torch.eye(h.shape[0], dtype=h.dtype)
    hinv = torch.linalg.cholesky(torch.cholesky_inverse(torch.linalg.cholesky(h)), upper=True)
    q = torch.zeros_like(w)
    for i in range(w.shape[1]):
        q[:, i] = torch.clamp(torch.round(w[:, i] / scale), -127, 127) * scale
        err = (w[:, i] - q[:, i]) / hinv[i, i]
        w[:, i + 1:] -= err[:, None] * hinv[i, i + 1:][None, :]
    return q


class FakeGeneralLinear(torch.nn.Module):
    """Dequantized-value simulation of the section (c) schemes (float64 sums)."""

    def __init__(self, linear, wq=True, xq=True, wgroup=None, xgroup=None, keep_channels=None,
                 gptq_x=None):
        super().__init__()
        w = linear.weight.detach().to(torch.float32)
        if gptq_x is not None:
            w = gptq_rows(w, gptq_x)
        elif wq:
            w = quantize_groups_sym(w, wgroup)
        self.w = w.to(torch.float64)
        self.bias = linear.bias.detach().to(torch.float64)
        self.xq, self.xgroup, self.keep = xq, xgroup, keep_channels

    def forward(self, x):
        x = x.to(torch.float32)
        extra = 0
        if self.keep is not None:  # these channels in float, the rest quantized
            kept = torch.zeros_like(x)
            kept[..., self.keep] = x[..., self.keep]
            x = x.clone()
            x[..., self.keep] = 0
            extra = kept.to(torch.float64) @ self.w.T
        if self.xq:
            x = quantize_groups_sym(x, self.xgroup)
        return (x.to(torch.float64) @ self.w.T + extra + self.bias).to(torch.float32)


def load_sentences():
    path = os.path.join(HERE, "peer_sentences.txt")
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f if line.strip() and not line.startswith("#")]


def embed(model, batch):
    with torch.no_grad():
        out = model(**batch).last_hidden_state
    mask = batch["attention_mask"].unsqueeze(-1).to(out.dtype)
    pooled = (out * mask).sum(1) / mask.sum(1)
    return torch.nn.functional.normalize(pooled.to(torch.float64), dim=-1)


def collect_inputs(model, batches):
    """Every Linear's input rows (tokens, k), float64, for GPTQ's Hessian."""
    inputs, hooks = {}, []

    def hook(name):
        def fn(_module, args, _output):
            inputs[name] = args[0].detach().reshape(-1, args[0].shape[-1]).to(torch.float64)

        return fn

    for name, module in model.named_modules():
        if isinstance(module, torch.nn.Linear) and kind_of(name):
            hooks.append(module.register_forward_hook(hook(name)))
    with torch.no_grad():
        for batch in batches:
            model(**batch)
    for h in hooks:
        h.remove()
    return inputs


def collect_input_maxima(model, batches):
    """max |x_j| per input channel of every Linear, over the rows of real tokens."""
    maxima, hooks = {}, []
    current_mask = {}

    def hook(name):
        def fn(_module, inputs, _output):
            x = inputs[0].detach()
            rows = x[current_mask["m"].bool()]  # (tokens, k): padding excluded
            m = rows.abs().amax(dim=0)
            maxima[name] = torch.maximum(maxima[name], m) if name in maxima else m

        return fn

    for name, module in model.named_modules():
        if isinstance(module, torch.nn.Linear) and kind_of(name):
            hooks.append(module.register_forward_hook(hook(name)))
    with torch.no_grad():
        for batch in batches:
            current_mask["m"] = batch["attention_mask"]
            model(**batch)
    for h in hooks:
        h.remove()
    return maxima


def random_id_batches(tokenizer, seqs, length, seed):
    """Seeded random token ids of the vocabulary between [CLS] and [SEP]."""
    gen = torch.Generator().manual_seed(seed)
    special = set(tokenizer.all_special_ids)
    vocab = torch.tensor([i for i in range(tokenizer.vocab_size) if i not in special])
    ids = vocab[torch.randint(len(vocab), (seqs, length - 2), generator=gen)]
    cls = torch.full((seqs, 1), tokenizer.cls_token_id)
    sep = torch.full((seqs, 1), tokenizer.sep_token_id)
    input_ids = torch.cat([cls, ids, sep], dim=1)
    return [
        {
            "input_ids": input_ids,
            "attention_mask": torch.ones_like(input_ids),
            "token_type_ids": torch.zeros_like(input_ids),
        }
    ]


def smoothing(linear, xmax, alpha):
    """1/s_j with s_j = max|X_j|^a / max|W[:, j]|^(1-a); 1 where either is 0."""
    wmax = linear.weight.detach().abs().amax(dim=0).to(torch.float32)
    xmax = xmax.to(torch.float32)
    ok = (xmax > 0) & (wmax > 0)
    s = torch.where(ok, xmax.clamp(min=1e-30) ** alpha / wmax.clamp(min=1e-30) ** (1 - alpha),
                    torch.ones_like(xmax))
    return (1.0 / s).to(torch.float32)


class Quantizer:
    """Swaps the chosen Linear layers of `model` for fake-int8 ones and back."""

    def __init__(self, model):
        self.model = model
        self.linears = {n: m for n, m in model.named_modules()
                        if isinstance(m, torch.nn.Linear) and kind_of(n)}

    def apply(self, kinds, method, alpha=None, maxima=None):
        swapped = []
        for name, lin in self.linears.items():
            if kind_of(name) not in kinds:
                continue
            inv = smoothing(lin, maxima[name], alpha) if method.startswith("smooth") else None
            fake = FakeInt8Linear(lin, inv, asym=method.endswith("asym"))
            parent_name, _, attr = name.rpartition(".")
            parent = self.model.get_submodule(parent_name)
            setattr(parent, attr, fake)
            swapped.append((parent, attr, lin))
        return swapped

    def apply_plan(self, plan, maxima, inputs):
        """plan: kind -> "plain" | ("smooth", alpha) | dict of FakeGeneralLinear
        options (keep_top=t keeps the t channels of largest max|X_j|; gptq=True)."""
        swapped = []
        for name, lin in self.linears.items():
            spec = plan.get(kind_of(name))
            if spec is None:
                continue
            if spec == "plain":
                fake = FakeInt8Linear(lin)
            elif isinstance(spec, tuple):
                fake = FakeInt8Linear(lin, smoothing(lin, maxima[name], spec[1]))
            else:
                opts = dict(spec)
                top = opts.pop("keep_top", None)
                if top:
                    opts["keep_channels"] = torch.topk(maxima[name], top).indices
                if opts.pop("gptq", False):
                    opts["gptq_x"] = inputs[name]
                fake = FakeGeneralLinear(lin, **opts)
            parent_name, _, attr = name.rpartition(".")
            parent = self.model.get_submodule(parent_name)
            setattr(parent, attr, fake)
            swapped.append((parent, attr, lin))
        return swapped

    @staticmethod
    def restore(swapped):
        for parent, attr, lin in swapped:
            setattr(parent, attr, lin)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", default="/work/main/build/models/all-MiniLM-L6-v2")
    p.add_argument("--calib-seqs", type=int, default=16)
    p.add_argument("--calib-len", type=int, default=128)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--seeds", type=int, default=3, help="random-id calibrations to compare")
    args = p.parse_args(argv)
    torch.set_num_threads(max(1, os.cpu_count() // 2))

    tokenizer = AutoTokenizer.from_pretrained(args.model)
    model = AutoModel.from_pretrained(args.model, dtype=torch.float32).eval()
    sentences = load_sentences()
    batch = tokenizer(sentences, padding=True, truncation=True, max_length=256, return_tensors="pt")
    reference = embed(model, batch)
    quant = Quantizer(model)

    calib = {
        "random ids": collect_input_maxima(
            model, random_id_batches(tokenizer, args.calib_seqs, args.calib_len, args.seed)),
        "sentences": collect_input_maxima(model, [batch]),
    }
    for extra in range(1, args.seeds):
        calib[f"random ids, seed {args.seed + extra}"] = collect_input_maxima(
            model, random_id_batches(tokenizer, args.calib_seqs, args.calib_len, args.seed + extra))

    def measure(kinds, method, alpha=None, source="random ids"):
        swapped = quant.apply(kinds, method, alpha, calib[source])
        try:
            cos = (embed(model, batch) * reference).sum(-1)
        finally:
            quant.restore(swapped)
        return float(cos.min()), float(cos.mean())

    all_kinds = list(KINDS)
    methods = [("plain", None, "random ids"), ("asym", None, "random ids")]
    for alpha in (0.5, 0.65, 0.8):
        methods.append(("smooth", alpha, "random ids"))
        methods.append(("smooth", alpha, "sentences"))
    for alpha in (0.5, 0.65, 0.8):
        methods.append(("smooth+asym", alpha, "random ids"))

    def label(method, alpha, source):
        if alpha is None:
            return method
        return f"{method} α={alpha} ({source})"

    print(f"# all-MiniLM-L6-v2, {len(sentences)} sentences, cosine vs float32 "
          f"(calibration: {args.calib_seqs} x {args.calib_len} random ids, seed {args.seed})\n")
    print("## Every matrix int8\n")
    print("| scheme | worst | mean |")
    print("|---|---|---|")
    for method, alpha, source in methods:
        worst, mean = measure(all_kinds, method, alpha, source)
        print(f"| {label(method, alpha, source)} | {worst:.6f} | {mean:.6f} |")
    for source in calib:
        if source.startswith("random ids, seed"):
            for alpha in (0.5, 0.65, 0.8):
                worst, mean = measure(all_kinds, "smooth", alpha, source)
                print(f"| {label('smooth', alpha, source)} | {worst:.6f} | {mean:.6f} |")
    sys.stdout.flush()

    print("\n## One layer kind int8 (all six layers), the rest float32: 1 − worst cosine\n")
    per_kind = [("plain", None, "random ids"), ("asym", None, "random ids"),
                ("smooth", 0.5, "random ids"), ("smooth", 0.65, "random ids"),
                ("smooth", 0.8, "random ids")]
    print("| kind | " + " | ".join(label(*m) for m in per_kind) + " |")
    print("|---|" + "---|" * len(per_kind))
    for kind in all_kinds:
        cells = [f"{1 - measure([kind], *m)[0]:.2e}" for m in per_kind]
        print(f"| {kind} | " + " | ".join(cells) + " |")

    print("\n## Every kind int8 but one (plain) / every kind smoothed (α=0.5) but one\n")
    print("| kept float32 | plain: worst | smooth α=0.5: worst |")
    print("|---|---|---|")
    for kind in all_kinds:
        rest = [k for k in all_kinds if k != kind]
        print(f"| {kind} | {measure(rest, 'plain')[0]:.6f} | "
              f"{measure(rest, 'smooth', 0.5)[0]:.6f} |")
    inputs = collect_inputs(
        model, random_id_batches(tokenizer, args.calib_seqs, args.calib_len, args.seed))

    def measure_plan(plan):
        swapped = quant.apply_plan(plan, calib["random ids"], inputs)
        try:
            cos = (embed(model, batch) * reference).sum(-1)
        finally:
            quant.restore(swapped)
        return cos

    print("\n## (c) Other schemes: every matrix, and each kind alone (1 − worst cosine)\n")
    others = [
        ("weights only int8 (x float)", dict(xq=False)),
        ("x only int8 (weights float)", dict(wq=False)),
        ("x groups of 32, W per row", dict(xgroup=32)),
        ("x groups of 128, W per row", dict(xgroup=128)),
        ("W groups of 128, x per row", dict(wgroup=128)),
        ("weights only, groups of 128", dict(xq=False, wgroup=128)),
        ("weights only, groups of 32", dict(xq=False, wgroup=32)),
        ("W and x groups of 32", dict(wgroup=32, xgroup=32)),
        ("W and x groups of 64", dict(wgroup=64, xgroup=64)),
        ("W and x groups of 128", dict(wgroup=128, xgroup=128)),
        ("top 4 x channels float", dict(keep_top=4)),
        ("top 16 x channels float", dict(keep_top=16)),
        ("x only, top 8 channels float", dict(wq=False, keep_top=8)),
        ("GPTQ weights only", dict(xq=False, gptq=True)),
        ("GPTQ weights, x per row", dict(gptq=True)),
    ]
    print("| scheme | all: worst | all: mean | " + " | ".join(all_kinds) + " |")
    print("|---|---|---|" + "---|" * len(all_kinds))
    for title, spec in others:
        cos = measure_plan({k: spec for k in all_kinds})
        cells = [f"{1 - float(measure_plan({k: spec}).min()):.1e}" for k in all_kinds]
        print(f"| {title} | {float(cos.min()):.6f} | {float(cos.mean()):.6f} | "
              + " | ".join(cells) + " |", flush=True)

    print("\n## Nearly every matrix int8: mixes (absent kinds stay float32)\n")
    smooth = ("smooth", 0.5)
    g32 = dict(wgroup=32, xgroup=32)
    mixes = [
        ("Q, K, O plain (today's default keep list)",
         {"query": "plain", "key": "plain", "attn-out": "plain"}),
        ("Q, K, V, O smoothed α=0.5", {k: smooth for k in ["query", "key", "value", "attn-out"]}),
        ("Q, K, V, O, up smoothed", {k: smooth for k in all_kinds[:5]}),
        ("Q, K, V, O, up smoothed; down groups of 32", dict({k: smooth for k in all_kinds[:5]},
                                                           **{"ffn-down": g32})),
        ("Q, K, O smoothed; V, up, down groups of 32",
         dict({k: smooth for k in ["query", "key", "attn-out"]},
              **{k: g32 for k in ["value", "ffn-up", "ffn-down"]})),
    ]
    print("| int8 kinds | worst | mean | worst three sentences |")
    print("|---|---|---|---|")
    for title, plan in mixes:
        cos = measure_plan(plan)
        worst = torch.argsort(cos)[:3]
        names = ", ".join(f"{sentences[i][:24]!r} {float(cos[i]):.5f}" for i in worst)
        print(f"| {title} | {float(cos.min()):.6f} | {float(cos.mean()):.6f} | {names} |",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
