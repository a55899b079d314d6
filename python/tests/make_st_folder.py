#!/usr/bin/env python3
"""Writes a sentence-transformers folder around the tiny BERT fixture
(tests/models/transformer/tiny_bert_gelu.safetensors, a 64-token WordPiece
vocabulary) with SentenceTransformer.save(), and reference.npy beside it:
encode(texts) with that pooling, with or without a Normalize module.

  make_st_folder.py OUT_DIR MODE [--no-normalize] [--max-seq N] --texts TEXTS.json

Run with a Python that has sentence-transformers (and torch); the folder is
what this sentence-transformers version writes (modules.json, the Pooling
config, the length), which is what normrt-convert --model must read.
"""
import argparse
import json
import shutil
import sys
from pathlib import Path

import numpy as np
from sentence_transformers import SentenceTransformer, models

sys.path.insert(0, str(Path(__file__).parent))
import support  # noqa: E402

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + (
    "the cat sat on mat dog ran a b c d e f g h i j k l m n o p q r s t u v w x y z "
    "##s ##ed ##ing ; ! , . ? - zebra red blue green one two three four five six "
    "seven eight nine ten big small fast"
).split()
CONFIG = {"model_type": "bert", "vocab_size": 64, "hidden_size": 32, "num_hidden_layers": 2,
          "num_attention_heads": 4, "intermediate_size": 37, "max_position_embeddings": 40}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("mode", choices=["cls", "mean", "max"])
    parser.add_argument("--no-normalize", action="store_true")
    parser.add_argument("--max-seq", type=int, default=24)
    parser.add_argument("--texts", type=Path, required=True)
    args = parser.parse_args()
    assert len(VOCAB) == 64
    hf = args.out_dir.with_name(args.out_dir.name + "_hf")
    hf.mkdir(parents=True, exist_ok=True)
    (hf / "config.json").write_text(json.dumps(CONFIG))
    (hf / "vocab.txt").write_text("\n".join(VOCAB) + "\n")
    (hf / "tokenizer_config.json").write_text(json.dumps({"do_lower_case": True}))
    shutil.copy(support.BERT_FIXTURES / "tiny_bert_gelu.safetensors", hf / "model.safetensors")

    word = models.Transformer(str(hf), max_seq_length=args.max_seq)
    pooling = models.Pooling(32, pooling_mode=args.mode)
    modules = [word, pooling] + ([] if args.no_normalize else [models.Normalize()])
    model = SentenceTransformer(modules=modules, device="cpu")
    model.save(str(args.out_dir))
    texts = json.loads(args.texts.read_text())
    embeddings = model.encode(texts, convert_to_numpy=True)
    assert embeddings.dtype == np.float32 and embeddings.shape == (len(texts), 32)
    np.save(args.out_dir / "reference.npy", embeddings)


if __name__ == "__main__":
    main()
