#!/usr/bin/env python3
"""Writes minilm_sentences_expected.txt: all-MiniLM-L6-v2 sentence embeddings
of every sentence of bench/peer_sentences.txt (short, long, unicode, numbers,
code; the peer benchmark's set), as sentence-transformers computes them
(BertModel, mean pooling, L2 normalization), by PyTorch in float64. The format
is minilm_expected.txt's (make_minilm_fixture.py), values to 9 significant
digits. test_minilm's int8 and bf16-activation cases measure against it.

Run: /work/venv/bin/python make_minilm_sentences_fixture.py [model dir]
(default: build/models/all-MiniLM-L6-v2, scripts/fetch_minilm.sh).
"""
import os
import sys

import torch
import torch.nn.functional as F
from transformers import BertModel, BertTokenizerFast

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))


def sentences():
    with open(os.path.join(ROOT, "bench", "peer_sentences.txt"), encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f if line.strip() and not line.startswith("#")]


def main():
    directory = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        ROOT, "build", "models", "all-MiniLM-L6-v2")
    tokenizer = BertTokenizerFast(os.path.join(directory, "vocab.txt"), do_lower_case=True)
    model = BertModel.from_pretrained(directory).eval().double()
    with open(os.path.join(HERE, "minilm_sentences_expected.txt"), "w") as out:
        for text in sentences():
            ids = tokenizer(text, truncation=True, max_length=256)["input_ids"]
            with torch.no_grad():
                hidden = model(input_ids=torch.tensor([ids])).last_hidden_state[0]
            embedding = F.normalize(hidden.mean(0), dim=0)
            out.write(f"sentence {text.encode('utf-8').hex()} {len(ids)} "
                      + " ".join(map(str, ids)) + "\n")
            out.write(f"embedding {embedding.numel()} "
                      + " ".join(f"{v:.9g}" for v in embedding.tolist()) + "\n")


if __name__ == "__main__":
    main()
