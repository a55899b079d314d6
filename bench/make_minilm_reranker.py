#!/usr/bin/env python3
"""Writes a MiniLM-shaped cross-encoder for bench_rerank: all-MiniLM-L6-v2's
encoder with a one-label BertForSequenceClassification head of seeded random
weights (the shape of cross-encoder/ms-marco-MiniLM-L-6-v2: 6 layers, width
384), saved with the model's tokenizer files. Its scores mean nothing; its
cost per pair is a real reranker's.

Run: /work/venv/bin/python make_minilm_reranker.py MINILM_DIR OUT_DIR
then normrt-convert --model OUT_DIR --output reranker.nrmt.
"""
import os
import shutil
import sys

import torch
from transformers import BertForSequenceClassification


def main(source, out):
    torch.manual_seed(11)
    model = BertForSequenceClassification.from_pretrained(source, num_labels=1).eval()
    model.save_pretrained(out)
    for name in ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json"):
        if os.path.exists(os.path.join(source, name)):
            shutil.copy(os.path.join(source, name), out)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
