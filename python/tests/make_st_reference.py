#!/usr/bin/env python3
"""Writes fixtures/minilm_sentence_transformers.npy: sentence-transformers'
embeddings of sentences.SENTENCES with all-MiniLM-L6-v2 (float32, (n, 384)),
the reference of test_sentence_encoder.py.

Run with a Python that has sentence-transformers (and torch), on the folder
scripts/fetch_minilm.sh writes:
  /work/venv/bin/python python/tests/make_st_reference.py build/models/all-MiniLM-L6-v2
With --check FILE.npy it writes the embeddings there instead (the live test).
"""
import argparse
import os
import sys

import numpy as np
from sentence_transformers import SentenceTransformer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sentences import SENTENCES  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model_dir")
    parser.add_argument("--output", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "fixtures", "minilm_sentence_transformers.npy"))
    args = parser.parse_args()
    model = SentenceTransformer(args.model_dir, device="cpu")
    embeddings = model.encode(SENTENCES, batch_size=8, convert_to_numpy=True)
    assert embeddings.dtype == np.float32 and embeddings.shape == (len(SENTENCES), 384)
    np.save(args.output, embeddings)
    print(f"{args.output}: {embeddings.shape}, max_seq_length {model.max_seq_length}")


if __name__ == "__main__":
    main()
