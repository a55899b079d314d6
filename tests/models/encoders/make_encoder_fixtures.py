#!/usr/bin/env python3
"""Writes the tiny random-weight encoder fixtures of test_encoder_families.

Each fixture is a Hugging Face model folder <name>/ (config.json written by
transformers' save_pretrained, model.safetensors, and for the families with
a BPE or Unigram tokenizer the tokenizer.json of a tokenizer fixture of
tests/tools/text) plus <name>.expected.txt, the cases and transformers'
outputs computed in float64 from exactly the stored weights:

  case <label> <first-as-hex or -> <second-as-hex or -> <n> <ids...>
  types <label> <n> <token type ids...>     (BERT classifier: segment ids)
  output <label> <output-name> <rows> <cols> <values...>

A case with text was tokenized by Hugging Face `tokenizers` from the
folder's tokenizer.json (the C++ test tokenizes the same text and must get
the same ids); a case without text ("- -") lists its ids directly (ids with
padding tokens inside, random ids for the models without a tokenizer).

Outputs: last_hidden_state [S, H] for the encoders, logits [1, L] for the
sequence classifiers (BertForSequenceClassification, with token type ids:
its pairs have segment 1; XLMRobertaForSequenceClassification;
DistilBertForSequenceClassification), and for tiny_roberta the
sentence embedding (mean, L2-normalized) of its first case.

Run: /work/venv/bin/python make_encoder_fixtures.py [NAME ...] (needs torch,
transformers, tokenizers, safetensors); writes every fixture, or the named
ones, next to itself.
"""
import os
import shutil
import sys

import torch
import torch.nn.functional as F
from safetensors.torch import load_file
from tokenizers import Tokenizer
from transformers import (BertConfig, BertForSequenceClassification, DistilBertConfig,
                          DistilBertForSequenceClassification, DistilBertModel, RobertaConfig,
                          RobertaModel, XLMRobertaConfig, XLMRobertaForSequenceClassification,
                          XLMRobertaModel)

HERE = os.path.dirname(os.path.abspath(__file__))
TOKENIZERS = os.path.join(HERE, "..", "..", "tools", "text", "fixtures")

# Tricky strings for the tokenizers (accents, CJK, emoji, odd white space,
# a literal special token); the pairs are (query, passage) for rerankers.
TEXTS = [
    "Hello, world!",
    "  two  spaces and trailing ",
    "Café naïve résumé ÀÉÎÕÜ",
    "我爱北京天安门 😀🎉 ❤️",
    "Don't worry: it's 3.14159 </s> e-mail user@example.com",
]
PAIRS = [
    ("how old is the fox?", "The quick brown fox is six years old."),
    ("Привет", "Καλημέρα κόσμε, مرحبا"),
]

SMALL = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=37,
             hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)


def randomize(model, generator):
    """Unit-scale activations (HF's 0.02 init leaves an encoder near its
    LayerNorm biases, which would hide mistakes in the layers)."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            noise = torch.randn(p.shape, generator=generator, dtype=torch.float64)
            if "layer_norm" in name.lower() and name.endswith("weight"):
                p.copy_(1 + 0.2 * noise)
            elif name.endswith("bias"):
                p.copy_(0.1 * noise)
            elif "embeddings" in name or p.dim() == 1:
                p.copy_(noise)
            else:  # [out, in]
                p.copy_(noise / p.shape[1] ** 0.5)


def save(model, name, tokenizer):
    """The folder as save_pretrained writes it, then the model reloaded from
    it in float64, so the reference uses exactly the stored values."""
    folder = os.path.join(HERE, name)
    shutil.rmtree(folder, ignore_errors=True)
    model.save_pretrained(folder, safe_serialization=True)
    if tokenizer:
        shutil.copy(os.path.join(TOKENIZERS, tokenizer, "tokenizer.json"), folder)
    stored = load_file(os.path.join(folder, "model.safetensors"))
    reloaded = type(model)(model.config).eval()
    missing, unexpected = reloaded.load_state_dict(stored, strict=False)
    assert not unexpected and all("position_ids" in k for k in missing), (missing, unexpected)
    return reloaded.double()


def hexed(text):
    return text.encode("utf-8").hex() if text is not None else "-"


class Writer:
    def __init__(self, name):
        self.out = open(os.path.join(HERE, name + ".expected.txt"), "w")

    def case(self, label, ids, first=None, second=None, types=None):
        self.out.write(f"case {label} {hexed(first)} {hexed(second)} {len(ids)} "
                       + " ".join(map(str, ids)) + "\n")
        if types is not None:
            self.out.write(f"types {label} {len(types)} " + " ".join(map(str, types)) + "\n")

    def output(self, label, output, tensor):
        rows, cols = tensor.shape
        values = " ".join(repr(float(v)) for v in tensor.reshape(-1).tolist())
        self.out.write(f"output {label} {output} {rows} {cols} {values}\n")


def text_cases(tokenizer_name, pairs):
    tok = Tokenizer.from_file(os.path.join(TOKENIZERS, tokenizer_name, "tokenizer.json"))
    tok.no_truncation()
    cases = [(f"text{i}", t, None) for i, t in enumerate(TEXTS)]
    if pairs:
        cases += [(f"pair{i}", a, b) for i, (a, b) in enumerate(PAIRS)]
    for label, first, second in cases:
        enc = tok.encode(first, second) if second is not None else tok.encode(first)
        yield label, first, second, enc.ids, enc.type_ids


def hidden(model, ids):
    with torch.no_grad():
        return model(input_ids=torch.tensor([ids])).last_hidden_state[0]


def logits(model, ids, types=None):
    with torch.no_grad():
        if types is None:
            return model(input_ids=torch.tensor([ids])).logits
        return model(input_ids=torch.tensor([ids]), token_type_ids=torch.tensor([types])).logits


def roberta_family(name, cls, config_cls, tokenizer, seed, act):
    vocab = Tokenizer.from_file(os.path.join(TOKENIZERS, tokenizer, "tokenizer.json")).get_vocab_size()
    config = config_cls(vocab_size=vocab, max_position_embeddings=64, type_vocab_size=1,
                        pad_token_id=1, bos_token_id=0, eos_token_id=2, hidden_act=act,
                        layer_norm_eps=1e-5, **SMALL)
    generator = torch.Generator().manual_seed(seed)
    model = cls(config).eval()
    randomize(model, generator)
    model = save(model, name, tokenizer)
    w = Writer(name)
    for label, first, second, ids, types in text_cases(tokenizer, pairs=False):
        assert all(t == 0 for t in types)
        w.case(label, ids, first, second)
        w.output(label, "last_hidden_state", hidden(model, ids))
    # Padding ids inside the sequence: their position is padding_idx, and the
    # positions after them do not count them (HF's position ids).
    padded = [0, 5, 1, 7, 1, 1, 9, 2]
    w.case("padding_inside", padded)
    w.output("padding_inside", "last_hidden_state", hidden(model, padded))
    w.case("one_token", [0])
    w.output("one_token", "last_hidden_state", hidden(model, [0]))
    longest = torch.randint(3, vocab, (64 - 2,), generator=generator).tolist()  # 62 = 64 - pad - 1
    w.case("longest", longest)
    w.output("longest", "last_hidden_state", hidden(model, longest))
    return model, w


def write_roberta():
    model, w = roberta_family("tiny_roberta", RobertaModel, RobertaConfig, "roberta_bpe", 31,
                              "gelu")
    tok = Tokenizer.from_file(os.path.join(TOKENIZERS, "roberta_bpe", "tokenizer.json"))
    ids = tok.encode(TEXTS[0]).ids
    w.output("text0", "embedding", F.normalize(hidden(model, ids).mean(0, keepdim=True), dim=-1))


def write_xlmr():
    roberta_family("tiny_xlmr", XLMRobertaModel, XLMRobertaConfig, "xlmr_unigram", 32,
                   "gelu_new")


def write_xlmr_classifier():
    name, tokenizer = "tiny_xlmr_cls", "xlmr_unigram"
    vocab = Tokenizer.from_file(os.path.join(TOKENIZERS, tokenizer, "tokenizer.json")).get_vocab_size()
    config = XLMRobertaConfig(vocab_size=vocab, max_position_embeddings=64, type_vocab_size=1,
                              pad_token_id=1, bos_token_id=0, eos_token_id=2, num_labels=1,
                              hidden_act="gelu", layer_norm_eps=1e-5, **SMALL)
    model = XLMRobertaForSequenceClassification(config).eval()
    randomize(model, torch.Generator().manual_seed(33))
    model = save(model, name, tokenizer)
    w = Writer(name)
    for label, first, second, ids, types in text_cases(tokenizer, pairs=True):
        assert all(t == 0 for t in types), "RoBERTa-style pairs have one segment"
        w.case(label, ids, first, second)
        w.output(label, "logits", logits(model, ids))


def write_bert_classifier():
    # A cross-encoder: pairs are [CLS] A [SEP] B [SEP] with B's tokens of type 1.
    name, tokenizer = "tiny_bert_cls", "bert_uncased"
    vocab = Tokenizer.from_file(os.path.join(TOKENIZERS, tokenizer, "tokenizer.json")).get_vocab_size()
    config = BertConfig(vocab_size=vocab, max_position_embeddings=64, type_vocab_size=2,
                        num_labels=3, hidden_act="gelu", layer_norm_eps=1e-12, **SMALL)
    generator = torch.Generator().manual_seed(34)
    model = BertForSequenceClassification(config).eval()
    randomize(model, generator)
    model = save(model, name, tokenizer)
    w = Writer(name)
    for label, first, second, ids, types in text_cases(tokenizer, pairs=True):
        w.case(label, ids, first, second, types)
        w.output(label, "logits", logits(model, ids, types))
    for label, s in (("s1", 1), ("s64", 64)):
        ids = torch.randint(0, vocab, (s,), generator=generator).tolist()
        types = [0] * (s // 2) + [1] * (s - s // 2)
        w.case(label, ids, types=types)
        w.output(label, "logits", logits(model, ids, types))


def write_distilbert():
    name = "tiny_distilbert"
    config = DistilBertConfig(vocab_size=64, dim=32, n_layers=2, n_heads=4, hidden_dim=37,
                              max_position_embeddings=40, activation="gelu", dropout=0.0,
                              attention_dropout=0.0)
    generator = torch.Generator().manual_seed(35)
    model = DistilBertModel(config).eval()
    randomize(model, generator)
    model = save(model, name, None)
    w = Writer(name)
    for label, s in (("s7", 7), ("s1", 1), ("s40", 40)):
        ids = torch.randint(0, 64, (s,), generator=generator).tolist()
        w.case(label, ids)
        w.output(label, "last_hidden_state", hidden(model, ids))


def write_distilbert_classifier():
    # DistilBertForSequenceClassification: pre_classifier + ReLU + classifier
    # on the first token; no token types (a pair is one id sequence).
    name, tokenizer = "tiny_distilbert_cls", "bert_uncased"
    vocab = Tokenizer.from_file(os.path.join(TOKENIZERS, tokenizer, "tokenizer.json")).get_vocab_size()
    config = DistilBertConfig(vocab_size=vocab, dim=32, n_layers=2, n_heads=4, hidden_dim=37,
                              max_position_embeddings=64, activation="gelu", dropout=0.0,
                              attention_dropout=0.0, seq_classif_dropout=0.0, num_labels=2)
    model = DistilBertForSequenceClassification(config).eval()
    randomize(model, torch.Generator().manual_seed(36))
    model = save(model, name, tokenizer)
    w = Writer(name)
    for label, first, second, ids, _ in text_cases(tokenizer, pairs=True):
        w.case(label, ids, first, second)
        w.output(label, "logits", logits(model, ids))


WRITERS = {
    "tiny_roberta": write_roberta,
    "tiny_xlmr": write_xlmr,
    "tiny_xlmr_cls": write_xlmr_classifier,
    "tiny_bert_cls": write_bert_classifier,
    "tiny_distilbert": write_distilbert,
    "tiny_distilbert_cls": write_distilbert_classifier,
}


def main():
    """Every fixture, or those named on the command line."""
    for name in sys.argv[1:] or WRITERS:
        WRITERS[name]()


if __name__ == "__main__":
    main()
