#!/usr/bin/env python3
"""Builds the tokenizer fixtures of test_tokenizers and their expected ids.

Tiny tokenizers are trained here with Hugging Face `tokenizers` (and
`sentencepiece`) on TRAINING_TEXT, and written to fixtures/<name>/ as the
files a model folder has. Each is then run by Hugging Face `tokenizers`
(the reference) on tokenizer_corpus.py, and the ids and token type ids go to
fixtures/<name>.cases:

  max_length TAB first-as-hex TAB second-as-hex or "-" TAB ids TAB type_ids

max_length 0: no truncation. With --minilm DIR, the real all-MiniLM-L6-v2
tokenizer.json is run too (fixtures/minilm_tokenizer_json.cases; the file
itself is not committed: scripts/fetch_minilm.sh downloads it).

Run: /work/venv/bin/python make_tokenizer_fixtures.py [--minilm DIR]
Needs: tokenizers, transformers, sentencepiece (pip).
"""
import argparse
import json
import os
import shutil
import sys
import tempfile

import sentencepiece as spm
from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tokenizer_corpus import PAIRS, SINGLES, TRUNCATED  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fixtures")

TRAINING_TEXT = """\
The quick brown fox jumps over the lazy dog. A tokenizer splits text into pieces.
Hello, world! How old are you? I am six years old, and you are older.
Don't worry, we'll see: it's what they've said and I'm sure you're right.
Café, naïve, résumé: accents are letters too. Ünïcödé ÀÉÎÕÜ àéîõü ÇçÑñ.
Numbers like 1234567890, 3.14159 and 1,000,000 appear in text.
Ελληνικά: Καλημέρα κόσμε. Русский текст: Привет, мир!
我爱北京天安门。日本語のテキスト、カタカナとひらがな。한국어 문장입니다.
Emoji 😀🎉 and hearts ❤️ are symbols. Arabic مرحبا and Hebrew שלום.
Hindi नमस्ते दुनिया and Thai สวัสดีชาวโลก are written in other scripts.
e-mail user@example.com or visit http://example.com/path?q=1 today.
Tokenization, normalization and segmentation of sentences and words.
The lazy dog sleeps while the quick fox runs around the old brown house.
""" * 2

# SentencePiece normalization rules: a small NFKC-like map (full-width,
# half-width kana, ligatures, composed accents, circled digits, NBSP), so
# that the precompiled charsmap path is exercised with a map of a few KB.
NORMALIZATION_RULES = [
    ("FF21", "41"), ("FF22", "42"), ("FF23", "43"), ("FF11", "31"), ("FF12", "32"), ("FF13", "33"),
    ("FB01", "66 69"), ("FB02", "66 6C"), ("A0", "20"), ("3000", "20"), ("2003", "20"),
    ("65 301", "E9"), ("61 308", "E4"), ("6E 303", "F1"),
    ("FF76", "30AB"), ("FF76 FF9E", "30AC"), ("FF77 FF9E", "30AE"), ("FF78 FF9E", "30B0"),
    ("FF9E", "309B"), ("2460", "31"), ("2461", "32"), ("BD", "31 2044 32"), ("B2", "32"),
    ("200B", ""), ("FEFF", ""), ("AD", ""),
    # as nmt_nfkc: white space to ' ', control characters removed
    ("9", "20"), ("A", "20"), ("D", "20"), ("85", "20"), ("1", ""), ("7", ""), ("1F", ""), ("7F", ""),
]


def write_cases(path, tokenizer, other_reference=None):
    """Runs `tokenizer` (a tokenizers.Tokenizer) on the corpus.

    other_reference(text) -> ids or None: where it gives ids that differ
    from Hugging Face's, the case records those instead, marked with a sixth
    field naming that reference (a documented divergence the C++ follows).
    """
    lines = []

    def run(first, second, max_length):
        if max_length:
            tokenizer.enable_truncation(max_length)
        else:
            tokenizer.no_truncation()
        encoding = tokenizer.encode(first, second) if second is not None else tokenizer.encode(first)
        hex_b = second.encode("utf-8").hex() if second is not None else "-"
        ids, type_ids, marker = encoding.ids, encoding.type_ids, ""
        if other_reference is not None:
            other = other_reference(first, second, max_length)
            if other is not None and other != ids:
                print(f"{os.path.basename(path)}: Hugging Face and {other_reference.__name__} differ on "
                      f"{first!r}:\n  {ids}\n  {other}")
                ids, type_ids, marker = other, [0] * len(other), "\t" + other_reference.__name__
        lines.append(f"{max_length}\t{first.encode('utf-8').hex()}\t{hex_b}\t"
                     f"{' '.join(map(str, ids))}\t{' '.join(map(str, type_ids))}{marker}\n")

    for text in SINGLES:
        run(text, None, 0)
    for first, second in PAIRS:
        run(first, second, 0)
    for case, max_length in TRUNCATED:
        if isinstance(case, tuple):
            run(case[0], case[1], max_length)
        else:
            run(case, None, max_length)
    tokenizer.no_truncation()
    with open(path, "w") as out:
        out.writelines(lines)


def folder(name):
    path = os.path.join(OUT, name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def train_byte_level_bpe():
    """RoBERTa-style: ByteLevel BPE, <s> A </s>, <mask> with lstrip."""
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=600, min_frequency=2,
                                  special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tokenizer.train_from_iterator(TRAINING_TEXT.splitlines(), trainer)
    tokenizer.add_special_tokens([AddedToken("<mask>", lstrip=True, special=True)])
    cls, sep = tokenizer.token_to_id("<s>"), tokenizer.token_to_id("</s>")
    tokenizer.post_processor = processors.RobertaProcessing(("</s>", sep), ("<s>", cls))
    path = folder("roberta_bpe")
    tokenizer.save(os.path.join(path, "tokenizer.json"))
    # The same model as vocab.json + merges.txt (the fallback files).
    legacy = folder("roberta_bpe_legacy")
    tokenizer.model.save(legacy)
    with open(os.path.join(legacy, "tokenizer_config.json"), "w") as out:
        json.dump({"tokenizer_class": "RobertaTokenizer", "add_prefix_space": False}, out)
    write_cases(os.path.join(OUT, "roberta_bpe.cases"), tokenizer)

    # GPT-2 style: add_prefix_space, no special tokens around the text.
    gpt2 = Tokenizer.from_str(tokenizer.to_str())
    gpt2.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
    gpt2.post_processor = processors.ByteLevel(trim_offsets=True)
    gpt2_path = folder("gpt2_bpe_prefix")
    gpt2.save(os.path.join(gpt2_path, "tokenizer.json"))
    write_cases(os.path.join(OUT, "gpt2_bpe_prefix.cases"), gpt2)


def train_wordpiece():
    for name, lowercase in (("bert_uncased", True), ("bert_cased", False)):
        tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]", max_input_chars_per_word=20))
        tokenizer.normalizer = normalizers.BertNormalizer(lowercase=lowercase, strip_accents=None,
                                                          handle_chinese_chars=True, clean_text=True)
        tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        trainer = trainers.WordPieceTrainer(vocab_size=500, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"],
                                            show_progress=False)
        tokenizer.train_from_iterator(TRAINING_TEXT.splitlines(), trainer)
        cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
        tokenizer.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
            special_tokens=[("[CLS]", cls), ("[SEP]", sep)])
        path = folder(name)
        tokenizer.save(os.path.join(path, "tokenizer.json"))
        write_cases(os.path.join(OUT, name + ".cases"), tokenizer)

def mpnet_wordpiece():
    """MPNet's tokenizer.json as transformers' MPNetTokenizer writes it
    (all-mpnet-base-v2's layout): WordPiece over the uncased BERT vocabulary
    with <s> <pad> </s> <unk> in front (ids 0-3, so <pad> is MPNet's
    padding_idx 1) and <mask> (lstrip) at the end, lower-casing, [UNK] for
    unknown pieces, <s> A </s> and <s> A </s></s> B </s> (RobertaProcessing).
    Built from bert_uncased's vocabulary (train_wordpiece first)."""
    from transformers import MPNetTokenizer
    bert = json.load(open(os.path.join(OUT, "bert_uncased", "tokenizer.json")))
    words = ["<s>", "<pad>", "</s>", "<unk>"]
    words += [w for w, _ in sorted(bert["model"]["vocab"].items(), key=lambda kv: kv[1])]
    words.append("<mask>")
    hf = MPNetTokenizer(vocab={w: i for i, w in enumerate(words)}, do_lower_case=True)
    path = folder("mpnet_wordpiece")
    with tempfile.TemporaryDirectory() as saved:
        hf.save_pretrained(saved)
        shutil.copy(os.path.join(saved, "tokenizer.json"), path)
    tokenizer = Tokenizer.from_file(os.path.join(path, "tokenizer.json"))
    write_cases(os.path.join(OUT, "mpnet_wordpiece.cases"), tokenizer)


def train_unigram():
    """XLM-R style: a SentencePiece Unigram model with a small charsmap, as
    sentencepiece.bpe.model, and the tokenizer.json Hugging Face's hub has
    for XLM-R (Precompiled + Replace " {2,}", Metaspace, fairseq ids)."""
    work = tempfile.mkdtemp()
    text_path = os.path.join(work, "train.txt")
    with open(text_path, "w") as out:
        out.write(TRAINING_TEXT)
    rules_path = os.path.join(work, "rules.tsv")
    with open(rules_path, "w") as out:
        for source, target in NORMALIZATION_RULES:
            out.write(f"{source}\t{target}\n")
    prefix = os.path.join(work, "uni")
    spm.SentencePieceTrainer.train(input=text_path, model_prefix=prefix, vocab_size=400,
                                   model_type="unigram", character_coverage=0.995, hard_vocab_limit=False,
                                   normalization_rule_tsv=rules_path, minloglevel=2)
    path = folder("xlmr_unigram_spm")
    shutil.copy(prefix + ".model", os.path.join(path, "sentencepiece.bpe.model"))

    from sentencepiece import sentencepiece_model_pb2 as model_pb2
    proto = model_pb2.ModelProto()
    with open(prefix + ".model", "rb") as f:
        proto.ParseFromString(f.read())
    vocab = [("<s>", 0.0), ("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0)]
    vocab += [(p.piece, p.score) for p in proto.pieces[3:]]
    vocab += [("<mask>", 0.0)]
    tokenizer = Tokenizer(models.Unigram(vocab, unk_id=3, byte_fallback=False))
    tokenizer.normalizer = normalizers.Sequence([
        normalizers.Precompiled(proto.normalizer_spec.precompiled_charsmap),
        normalizers.Replace(Regex(" {2,}"), " "),
    ])
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always", split=True)
    tokenizer.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always", split=True)
    tokenizer.add_special_tokens([AddedToken(t, special=True) for t in ("<s>", "<pad>", "</s>", "<unk>")])
    tokenizer.add_special_tokens([AddedToken("<mask>", lstrip=True, special=True)])
    tokenizer.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>",
        special_tokens=[("<s>", 0), ("</s>", 2)])
    json_path = folder("xlmr_unigram")
    tokenizer.save(os.path.join(json_path, "tokenizer.json"))
    write_cases(os.path.join(OUT, "xlmr_unigram.cases"), tokenizer)

    # The folder with only sentencepiece.bpe.model, as transformers converts
    # it for a user (its tokenizer.json is kept as a third Unigram variant:
    # WhitespaceSplit before Metaspace). normrt runs the .model itself with
    # libsentencepiece, whose normalizer differs from Hugging Face's on
    # grapheme clusters of 6+ bytes; those cases expect libsentencepiece's ids.
    from transformers import XLMRobertaTokenizer
    converted = XLMRobertaTokenizer.from_pretrained(path).backend_tokenizer
    converted.no_padding()
    v5_path = folder("xlmr_unigram_converted")
    converted.save(os.path.join(v5_path, "tokenizer.json"))
    write_cases(os.path.join(OUT, "xlmr_unigram_converted.cases"), converted)
    processor = spm.SentencePieceProcessor(model_file=os.path.join(path, "sentencepiece.bpe.model"))

    def sentencepiece_library(first, second, max_length):
        if second is not None or max_length or any(t in first for t in ("<s>", "</s>", "<pad>", "<unk>", "<mask>")):
            return None  # only plain single texts are compared
        fairseq = {0: 3, 1: 0, 2: 2}
        return [0] + [fairseq.get(i, i + 1) for i in processor.encode(first)] + [2]

    write_cases(os.path.join(OUT, "xlmr_unigram_spm.cases"), converted, sentencepiece_library)
    shutil.rmtree(work)


def unigram_options():
    """A Unigram pipeline with the other options normrt reads: NFKC,
    Lowercase, Strip, literal and anchored Replace, WhitespaceSplit, Metaspace
    with prepend_scheme "first" and no split, byte_fallback."""
    proto = spm_proto()
    pieces = [("<unk>", 0.0), ("<s>", 0.0), ("</s>", 0.0)]
    pieces += [(p.piece, p.score) for p in proto.pieces[3:]]
    pieces += [(f"<0x{b:02X}>", -20.0) for b in range(256)]
    tokenizer = Tokenizer(models.Unigram(pieces, unk_id=0, byte_fallback=True))
    tokenizer.normalizer = normalizers.Sequence([
        normalizers.NFKC(), normalizers.Lowercase(), normalizers.Strip(left=True, right=False),
        normalizers.Replace("ß", "ss"), normalizers.Replace(Regex("\\A▁"), "▁▁")])
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.WhitespaceSplit(),
        pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first", split=False)])
    tokenizer.add_special_tokens([AddedToken(t, special=True) for t in ("<s>", "</s>")])
    tokenizer.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> $B:1 </s>:1", special_tokens=[("<s>", 1), ("</s>", 2)])
    path = folder("unigram_options")
    tokenizer.save(os.path.join(path, "tokenizer.json"))
    write_cases(os.path.join(OUT, "unigram_options.cases"), tokenizer)


def spm_proto():
    from sentencepiece import sentencepiece_model_pb2 as model_pb2
    proto = model_pb2.ModelProto()
    with open(os.path.join(OUT, "xlmr_unigram_spm", "sentencepiece.bpe.model"), "rb") as f:
        proto.ParseFromString(f.read())
    return proto


def real_minilm(directory):
    tokenizer = Tokenizer.from_file(os.path.join(directory, "tokenizer.json"))
    tokenizer.no_padding()
    write_cases(os.path.join(OUT, "minilm_tokenizer_json.cases"), tokenizer)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--minilm", help="all-MiniLM-L6-v2 folder with tokenizer.json")
    args = parser.parse_args()
    os.makedirs(OUT, exist_ok=True)
    train_byte_level_bpe()
    train_wordpiece()
    mpnet_wordpiece()
    train_unigram()
    unigram_options()
    if args.minilm:
        real_minilm(args.minilm)


if __name__ == "__main__":
    main()
