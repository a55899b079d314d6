#!/usr/bin/env python3
"""Writes rerank_batch.expected.txt: transformers' float64 logits of one
query against documents of different lengths (one cut to the model's length,
one empty), for test_rerank's batched /v1/rerank cases, on the tiny rerankers
of tests/models/encoders (tiny_bert_rerank with token types, tiny_xlmr_cls
without).

  query <query-as-hex>
  document <index> <document-as-hex>
  pair <model> <index> <tokens> <logit>

Each pair is tokenized by Hugging Face `tokenizers` from the model folder's
tokenizer.json with the pair template, cut to the model's length (longest
first, as transformers' truncation=True cuts), and run alone, unpadded.

Run: /work/venv/bin/python make_rerank_batch_reference.py (needs torch,
transformers, tokenizers); writes next to itself.
"""
import os

import torch
from tokenizers import Tokenizer
from transformers import AutoModelForSequenceClassification

HERE = os.path.dirname(os.path.abspath(__file__))
ENCODERS = os.path.join(HERE, "..", "..", "models", "encoders")

QUERY = "how old is the fox?"
DOCUMENTS = [
    "Paris is in France.",
    "The quick brown fox is six years old, and it lives in the woods behind the old mill "
    "with its family of four cubs, who were born last spring after a very long and cold "
    "winter that kept every animal of the forest in its den for weeks on end.",
    "fox",
    "",
    "The fox is old.",
    "naïve café 😀 and a fox of six years",
    "Foxes live about three to four years in the wild.",
]
# The longest sequence each model takes (XLM-R's positions start after its
# padding index, 1, so 64 position embeddings hold 62 tokens).
MODELS = {"tiny_bert_rerank": 64, "tiny_xlmr_cls": 62}


def main():
    lines = ["query " + QUERY.encode().hex()]
    for i, document in enumerate(DOCUMENTS):
        lines.append(f"document {i} {document.encode().hex() or '-'}")
    for name, max_length in MODELS.items():
        folder = os.path.join(ENCODERS, name)
        tokenizer = Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))
        tokenizer.enable_truncation(max_length=max_length, strategy="longest_first")
        model = AutoModelForSequenceClassification.from_pretrained(folder).double().eval()
        for i, document in enumerate(DOCUMENTS):
            encoding = tokenizer.encode(QUERY, document)
            kwargs = {"input_ids": torch.tensor([encoding.ids])}
            if model.config.type_vocab_size > 1:
                kwargs["token_type_ids"] = torch.tensor([encoding.type_ids])
            with torch.no_grad():
                logit = model(**kwargs).logits[0, 0].item()
            lines.append(f"pair {name} {i} {len(encoding.ids)} {logit!r}")
    with open(os.path.join(HERE, "rerank_batch.expected.txt"), "w") as out:
        out.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
