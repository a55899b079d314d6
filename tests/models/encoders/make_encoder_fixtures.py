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

MPNet (write_mpnet): tiny_mpnet/ is a sentence-transformers folder
(SentenceTransformer.save of the tiny MPNetModel, mean pooling, Normalize,
max_seq_length 20) whose config.json and model.safetensors are also the
plain Hugging Face fixture; tiny_mpnet_st.expected.txt holds
sentence-transformers' encode() of texts in float64 (output "embedding",
its cases' ids truncated as encode() truncates them); tiny_mpnet_mlm/ is an
MPNetForMaskedLM checkpoint (tensors under "mpnet.", an lm_head the encoder
does not use); tiny_mpnet.expected.txt also lists transformers' bucket of
each relative position −300 .. 300 ("buckets -300 <601 buckets>").

Outputs: last_hidden_state [S, H] for the encoders, logits [1, L] for the
sequence classifiers (BertForSequenceClassification, with token type ids:
its pairs have segment 1; XLMRobertaForSequenceClassification;
DistilBertForSequenceClassification), and for tiny_roberta the
sentence embedding (mean, L2-normalized) of its first case.

Run: /work/venv/bin/python make_encoder_fixtures.py [NAME ...] (needs torch,
transformers, tokenizers, safetensors); writes every fixture, or the named
ones, next to itself.
"""
import json
import os
import shutil
import sys

import torch
import torch.nn.functional as F
from safetensors.torch import load_file
from tokenizers import Tokenizer
from transformers import (BertConfig, BertForSequenceClassification, DistilBertConfig,
                          DistilBertForSequenceClassification, DistilBertModel, MPNetConfig,
                          MPNetForMaskedLM, MPNetModel, MPNetTokenizer, RobertaConfig,
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
            elif "relative_attention_bias" in name:  # MPNet: as large as the scores
                p.copy_(noise)
            elif name.endswith("bias"):
                p.copy_(0.1 * noise)
            elif "embeddings" in name or p.dim() == 1:
                p.copy_(noise)
            else:  # [out, in]
                p.copy_(noise / p.shape[1] ** 0.5)


def save(model, name, tokenizer, tied=()):
    """The folder as save_pretrained writes it, then the model reloaded from
    it in float64, so the reference uses exactly the stored values (`tied`:
    names save_pretrained leaves out, as tied to others)."""
    folder = os.path.join(HERE, name)
    shutil.rmtree(folder, ignore_errors=True)
    model.save_pretrained(folder, safe_serialization=True)
    if tokenizer:
        shutil.copy(os.path.join(TOKENIZERS, tokenizer, "tokenizer.json"), folder)
    stored = load_file(os.path.join(folder, "model.safetensors"))
    reloaded = type(model)(model.config).eval()
    missing, unexpected = reloaded.load_state_dict(stored, strict=False)
    assert not unexpected and all("position_ids" in k or k in tied for k in missing), \
        (missing, unexpected)
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


def write_bert_classifier(name="tiny_bert_cls", num_labels=3, seed=34):
    # A cross-encoder: pairs are [CLS] A [SEP] B [SEP] with B's tokens of type 1.
    tokenizer = "bert_uncased"
    vocab = Tokenizer.from_file(os.path.join(TOKENIZERS, tokenizer, "tokenizer.json")).get_vocab_size()
    config = BertConfig(vocab_size=vocab, max_position_embeddings=64, type_vocab_size=2,
                        num_labels=num_labels, hidden_act="gelu", layer_norm_eps=1e-12, **SMALL)
    generator = torch.Generator().manual_seed(seed)
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


def mpnet_model(config, cls, seed):
    model = cls(config).eval()
    randomize(model, torch.Generator().manual_seed(seed))
    return model


def classic_sentence_transformers_layout(folder, max_seq_length):
    """Rewrites a folder saved by sentence-transformers 6 into the layout
    all-mpnet-base-v2 (and most published models) has: modules.json naming
    sentence_transformers.models.*, 1_Pooling/config.json with the
    pooling_mode_*_tokens flags, max_seq_length in sentence_bert_config.json,
    no 2_Normalize folder."""
    modules = [("", "Transformer"), ("1_Pooling", "Pooling"), ("2_Normalize", "Normalize")]
    with open(os.path.join(folder, "modules.json"), "w") as out:
        json.dump([{"idx": i, "name": str(i), "path": path,
                    "type": "sentence_transformers.models." + kind}
                   for i, (path, kind) in enumerate(modules)], out, indent=2)
    with open(os.path.join(folder, "1_Pooling", "config.json"), "w") as out:
        json.dump({"word_embedding_dimension": 32, "pooling_mode_cls_token": False,
                   "pooling_mode_mean_tokens": True, "pooling_mode_max_tokens": False,
                   "pooling_mode_mean_sqrt_len_tokens": False}, out, indent=2)
    with open(os.path.join(folder, "sentence_bert_config.json"), "w") as out:
        json.dump({"max_seq_length": max_seq_length, "do_lower_case": False}, out, indent=2)
    config_path = os.path.join(folder, "tokenizer_config.json")
    config = json.load(open(config_path))
    config["model_max_length"] = 512  # as all-mpnet-base-v2's: the length is sentence_bert_config's
    for local in ("is_local", "local_files_only"):
        config.pop(local, None)
    with open(config_path, "w") as out:
        json.dump(config, out, indent=2)
    shutil.rmtree(os.path.join(folder, "2_Normalize"))
    for extra in ("README.md", "config_sentence_transformers.json"):
        if os.path.exists(os.path.join(folder, extra)):
            os.remove(os.path.join(folder, extra))


def write_mpnet():
    from sentence_transformers import SentenceTransformer, models

    name, tokenizer = "tiny_mpnet", "mpnet_wordpiece"
    folder = os.path.join(HERE, name)
    hf_tokenizer = MPNetTokenizer.from_pretrained(os.path.join(TOKENIZERS, tokenizer))
    vocab = len(hf_tokenizer)
    # 160 positions: the longest case (158 tokens) reaches relative distances
    # past max_distance 128, where the buckets saturate.
    config = MPNetConfig(vocab_size=vocab, max_position_embeddings=160,
                         relative_attention_num_buckets=32, hidden_act="gelu",
                         layer_norm_eps=1e-12, **SMALL)
    model = mpnet_model(config, MPNetModel, 36)
    shutil.rmtree(folder, ignore_errors=True)
    model.save_pretrained(folder, safe_serialization=True)
    hf_tokenizer.save_pretrained(folder)
    word = models.Transformer(folder, max_seq_length=20)
    st = SentenceTransformer(modules=[word, models.Pooling(32, pooling_mode="mean"),
                                      models.Normalize()], device="cpu")
    st.save(folder)
    classic_sentence_transformers_layout(folder, max_seq_length=20)
    stored = load_file(os.path.join(folder, "model.safetensors"))
    reloaded = MPNetModel(config).eval()
    missing, unexpected = reloaded.load_state_dict(stored, strict=False)
    assert not unexpected and all("position_ids" in k for k in missing), (missing, unexpected)
    model = reloaded.double()

    w = Writer(name)
    tok = Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))
    tok.no_truncation()
    for i, text in enumerate(TEXTS):
        ids = tok.encode(text).ids
        w.case(f"text{i}", ids, text)
        w.output(f"text{i}", "last_hidden_state", hidden(model, ids))
    padded = [0, 5, 1, 7, 1, 1, 9, 2]  # <pad> (1) inside: positions skip it
    w.case("padding_inside", padded)
    w.output("padding_inside", "last_hidden_state", hidden(model, padded))
    w.case("one_token", [0])
    w.output("one_token", "last_hidden_state", hidden(model, [0]))
    generator = torch.Generator().manual_seed(37)
    longest = torch.randint(3, vocab, (160 - 2,), generator=generator).tolist()
    w.case("longest", longest)
    w.output("longest", "last_hidden_state", hidden(model, longest))
    relative = torch.arange(-300, 301)
    buckets = model.encoder.relative_position_bucket(relative).tolist()
    w.out.write("buckets -300 " + " ".join(map(str, buckets)) + "\n")

    # sentence-transformers' encode() in float64, from the saved folder.
    st = SentenceTransformer(folder, device="cpu").double()
    st_w = Writer(name + "_st")
    long_text = " ".join(TEXTS)  # more than 20 tokens: encode() truncates
    for i, text in enumerate(TEXTS + [long_text]):
        ids = st.tokenize([text])["input_ids"][0].tolist()
        st_w.case(f"st{i}", ids, text)
        with torch.no_grad():
            emb = st.encode([text], convert_to_tensor=True, normalize_embeddings=False)
        st_w.output(f"st{i}", "embedding", emb.reshape(1, -1).double())

    # An MPNetForMaskedLM checkpoint: "mpnet." names and an unused lm_head.
    mlm_config = MPNetConfig(vocab_size=40, hidden_size=16, num_hidden_layers=1,
                             num_attention_heads=2, intermediate_size=24,
                             max_position_embeddings=40, hidden_dropout_prob=0.0,
                             attention_probs_dropout_prob=0.0)
    mlm = save(mpnet_model(mlm_config, MPNetForMaskedLM, 38), "tiny_mpnet_mlm", None,
               tied=("lm_head.decoder.weight", "lm_head.decoder.bias"))
    mlm_w = Writer("tiny_mpnet_mlm")
    ids = torch.randint(3, 40, (30,), generator=generator).tolist()
    mlm_w.case("s30", ids)
    mlm_w.output("s30", "last_hidden_state", hidden(mlm.mpnet, ids))


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
    # A one-label BERT reranker (its score is sigmoid(logit)): normrt-serve's /v1/rerank.
    "tiny_bert_rerank": lambda: write_bert_classifier("tiny_bert_rerank", 1, 37),
    "tiny_distilbert": write_distilbert,
    "tiny_distilbert_cls": write_distilbert_classifier,
    "tiny_mpnet": write_mpnet,  # also tiny_mpnet_st and tiny_mpnet_mlm
}


def main():
    """Every fixture, or those named on the command line."""
    for name in sys.argv[1:] or WRITERS:
        WRITERS[name]()


if __name__ == "__main__":
    main()
