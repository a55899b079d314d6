#!/usr/bin/env python3
"""Which of all-MiniLM-L6-v2's matrices can be int8, layer by layer, in the
int8 + bf16-fast model (normrt-convert --dtype int8 --keep-dtype bf16, loaded
with bf16 activations), with worst cosine >= a threshold.

A greedy search over per-layer keep lists, simulated in PyTorch as the
kernels compute (bench/int8_minilm_simulation.py's fake int8 layers; the kept
matrices and x rounded to bf16, the embedding tables bf16). It starts from the
converter's default (query, key and attention output int8 in every layer,
the rest kept) and moves, one at a time, the kept matrix whose move costs
least, while the worst cosine stays >= --threshold.

The choice is made on bench/int8_selection_sentences.txt, a set of the same
kinds as the benchmark's bench/peer_sentences.txt but other sentences: the
benchmark's set is only reported beside each step, so that the list is not
fitted to the sentences it is judged on. Prints each step and, at the end,
the --keep-f32 list for normrt-convert and bench/models_vs_peers.py
(--int8-keep-f32). CPU only, a few minutes.

Usage: python bench/int8_keep_search.py [--model DIR] [--threshold 0.999]
"""
import argparse
import copy
import os
import sys

import torch
from transformers import AutoModel, AutoTokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import int8_minilm_simulation as sim  # noqa: E402


def bf16(t):
    return t.to(torch.bfloat16).to(torch.float32)


class Bf16FastLinear(torch.nn.Module):
    """A kept matrix stored bf16, x rounded to bf16, float sums (vdpbf16ps)."""

    def __init__(self, linear):
        super().__init__()
        self.w = bf16(linear.weight.detach().float()).to(torch.float64)
        self.b = linear.bias.detach().to(torch.float64)

    def forward(self, x):
        return (bf16(x.float()).to(torch.float64) @ self.w.T + self.b).to(torch.float32)


def int8_from_bf16(linear, asym):
    """--keep-dtype bf16 quantizes the int8 matrices from the bf16-rounded values."""
    rounded = copy.deepcopy(linear)
    rounded.weight.data = bf16(rounded.weight.data.float())
    return sim.FakeInt8Linear(rounded, asym=asym)


class Search:
    def __init__(self, model_dir, asym):
        self.asym = asym
        self.tok = AutoTokenizer.from_pretrained(model_dir)
        base = AutoModel.from_pretrained(model_dir).eval().float()
        self.base = base
        self.names = [n for n, m in base.named_modules()
                      if isinstance(m, torch.nn.Linear) and sim.kind_of(n)]
        self.model = copy.deepcopy(base)
        embeddings = self.model.embeddings
        for table in (embeddings.word_embeddings, embeddings.position_embeddings,
                      embeddings.token_type_embeddings):
            table.weight.data = bf16(table.weight.data)
        self.originals = {n: m for n, m in self.model.named_modules() if n in self.names}
        self.layers = {}

    def sentences(self, path):
        with open(path, encoding="utf-8") as f:
            lines = [line.rstrip("\n") for line in f if line.strip() and not line.startswith("#")]
        batch = self.tok(lines, padding=True, truncation=True, max_length=256,
                         return_tensors="pt")
        return batch, sim.embed(self.base, batch)

    def layer(self, name, kind):
        if (name, kind) not in self.layers:
            original = self.originals[name]
            self.layers[name, kind] = (int8_from_bf16(original, self.asym) if kind == "int8"
                                       else Bf16FastLinear(original))
        return self.layers[name, kind]

    def cosines(self, config, sentences):
        for name in self.names:
            parent, _, attr = name.rpartition(".")
            setattr(self.model.get_submodule(parent), attr, self.layer(name, config[name]))
        batch, reference = sentences
        cos = (sim.embed(self.model, batch) * reference).sum(-1)
        return cos.min().item(), cos.mean().item()


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", default="/work/main/build/models/all-MiniLM-L6-v2")
    p.add_argument("--threshold", type=float, default=0.999)
    p.add_argument("--symmetric", action="store_true",
                   help="x quantized symmetrically, as the kernels before 2026-11-26")
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    search = Search(args.model, asym=not args.symmetric)
    selection = search.sentences(os.path.join(HERE, "int8_selection_sentences.txt"))
    benchmark = search.sentences(os.path.join(HERE, "peer_sentences.txt"))

    def report(label, config):
        sw, sm = search.cosines(config, selection)
        bw, bm = search.cosines(config, benchmark)
        print(f"{label}: selection worst {sw:.6f} mean {sm:.6f}; "
              f"benchmark set worst {bw:.6f} mean {bm:.6f}", flush=True)

    config = {n: "int8" if sim.kind_of(n) in ("query", "key", "attn-out") else "bf16"
              for n in search.names}
    report("start (query, key, attention output int8)", config)
    while True:
        trials = []
        for name in (n for n in search.names if config[n] == "bf16"):
            worst, _ = search.cosines({**config, name: "int8"}, selection)
            trials.append((worst, name))
        if not trials or max(trials)[0] < args.threshold:
            best = max(trials) if trials else None
            print(f"stop: the best next move {best} falls below {args.threshold}")
            break
        worst, name = max(trials)
        config[name] = "int8"
        report(f"int8 {name}", config)
    kept = [f"{n}.weight" for n in search.names if config[n] == "bf16"]
    print("--keep-f32 " + ",".join(kept))


if __name__ == "__main__":
    main(sys.argv[1:])
