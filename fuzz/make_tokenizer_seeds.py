#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_tokenizer_json: tiny tokenizer.json files
of every kind and option normrt reads (a few hundred bytes to a few KB, so
that mutations land in the structure rather than in vocabularies).
fuzz_tokenizer_bytes' seeds are these, serialized by normrt:
  cmake --build build/release --target make_tokenizer_seeds
  build/release/tests/tools/text/make_tokenizer_seeds fuzz/corpus/tokenizer_bytes \\
      fuzz/corpus/tokenizer_json/*.json tests/tools/text/fixtures/xlmr_unigram_spm
Needs tokenizers and sentencepiece (pip):
  /work/venv/bin/python fuzz/make_tokenizer_seeds.py
"""
import os

from sentencepiece import sentencepiece_model_pb2 as model_pb2
from tokenizers import AddedToken, Regex, Tokenizer, models, normalizers, pre_tokenizers, processors, trainers

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus", "tokenizer_json")
SPM = os.path.join(HERE, "..", "tests", "tools", "text", "fixtures", "xlmr_unigram_spm",
                   "sentencepiece.bpe.model")
TEXT = ["Hello, world! Don't we'll see?", "Café naïve 我爱 😀", "the quick brown fox"]


def save(tokenizer, name):
    tokenizer.save(os.path.join(OUT, name), pretty=False)


def main():
    os.makedirs(OUT, exist_ok=True)
    wordpiece = Tokenizer(models.WordPiece(unk_token="[UNK]", max_input_chars_per_word=8))
    wordpiece.normalizer = normalizers.BertNormalizer(lowercase=True)
    wordpiece.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    wordpiece.train_from_iterator(TEXT, trainers.WordPieceTrainer(
        vocab_size=60, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"], show_progress=False))
    wordpiece.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", 2), ("[SEP]", 3)])
    wordpiece.enable_truncation(16)
    save(wordpiece, "wordpiece.json")

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.train_from_iterator(TEXT, trainers.BpeTrainer(
        vocab_size=70, special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"], show_progress=False))
    bpe.add_special_tokens([AddedToken("<mask>", lstrip=True, special=True)])
    bpe.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0))
    save(bpe, "bpe_roberta.json")
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
    bpe.post_processor = processors.ByteLevel()
    bpe.enable_truncation(8, strategy="only_second", direction="left")
    save(bpe, "bpe_gpt2_prefix.json")

    proto = model_pb2.ModelProto()
    with open(SPM, "rb") as f:
        proto.ParseFromString(f.read())
    pieces = [("<s>", 0.0), ("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0)]
    pieces += [(p.piece, p.score) for p in proto.pieces[3:40]] + [("<mask>", 0.0)]
    xlmr = Tokenizer(models.Unigram(pieces, unk_id=3))
    xlmr.normalizer = normalizers.Sequence([
        normalizers.Precompiled(proto.normalizer_spec.precompiled_charsmap),
        normalizers.Replace(Regex(" {2,}"), " ")])
    xlmr.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always", split=True)
    xlmr.add_special_tokens([AddedToken("<mask>", lstrip=True, special=True)])
    xlmr.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>", special_tokens=[("<s>", 0), ("</s>", 2)])
    save(xlmr, "unigram_xlmr.json")

    bytes_pieces = [("<unk>", 0.0)] + [(f"<0x{b:02X}>", -10.0) for b in range(0x40, 0x48)]
    bytes_pieces += [("▁a", -1.0), ("a", -2.0), ("b", -2.5), ("▁", -3.0), ("ab", -1.5)]
    plain = Tokenizer(models.Unigram(bytes_pieces, unk_id=0, byte_fallback=True))
    plain.normalizer = normalizers.Sequence([
        normalizers.NFKC(), normalizers.Lowercase(), normalizers.Strip(),
        normalizers.Replace(Regex(r"\A +| +\z"), ""), normalizers.Replace("x", "ab"),
        normalizers.Replace(Regex("\\A▁"), "▁▁")])
    plain.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.WhitespaceSplit(),
        pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first", split=False)])
    save(plain, "unigram_byte_fallback.json")


if __name__ == "__main__":
    main()
