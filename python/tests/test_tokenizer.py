"""normrt.Tokenizer gives Hugging Face's ids (the committed fixtures of
tests/tools/text, written by make_tokenizer_fixtures.py with `tokenizers`)."""

import copy

import numpy as np
import pytest

import normrt
import support


def read_cases(name):
    """fixtures/<name>.cases: max_length, text hex, second hex or '-', ids, type ids."""
    cases = []
    for line in (support.TEXT_FIXTURES / f"{name}.cases").read_text().splitlines():
        fields = line.split("\t")
        first = bytes.fromhex(fields[1]).decode("utf-8")
        second = None if fields[2] == "-" else bytes.fromhex(fields[2]).decode("utf-8")
        ids = [int(v) for v in fields[3].split()]
        type_ids = [int(v) for v in fields[4].split()]
        cases.append((int(fields[0]), first, second, ids, type_ids))
    return cases


@pytest.mark.parametrize("folder,kind", [("bert_uncased", "wordpiece"),
                                         ("roberta_bpe", "byte_level_bpe"),
                                         ("xlmr_unigram", "unigram"),
                                         ("xlmr_unigram_spm", "sentencepiece")])
def test_every_case_gives_hugging_faces_ids(folder, kind):
    tokenizer = normrt.Tokenizer.from_folder(str(support.TEXT_FIXTURES / folder))
    assert tokenizer.kind == kind
    assert folder in tokenizer.description
    cases = read_cases(folder)
    assert len(cases) > 40
    for i, (max_length, first, second, ids, type_ids) in enumerate(cases):
        tokenizer.max_length = max_length
        got = tokenizer.encode(first) if second is None else tokenizer.encode_pair(first, second)
        assert got.ids.dtype == np.int32 and got.type_ids.dtype == np.int32
        assert got.ids.tolist() == ids, f"case {i}: {first!r} {second!r}"
        assert got.type_ids.tolist() == type_ids, f"case {i}"
        assert len(got) == len(ids)


def test_bytes_round_trip():
    tokenizer = normrt.Tokenizer.from_folder(str(support.TEXT_FIXTURES / "bert_cased"))
    data = tokenizer.to_bytes()
    assert isinstance(data, bytes) and data[:4] == b"NRTK"
    again = normrt.Tokenizer.from_bytes(data)
    assert again.to_bytes() == data
    for text in ("Hello, World!", "naïve café", ""):
        assert again.encode(text).ids.tolist() == tokenizer.encode(text).ids.tolist()


def test_max_length_changes_only_the_object_it_is_set_on():
    tokenizer = normrt.Tokenizer.from_folder(str(support.TEXT_FIXTURES / "bert_uncased"))
    text = "the quick brown fox jumps over the lazy dog"
    full = tokenizer.encode(text).ids
    short = copy.copy(tokenizer)
    short.max_length = 5
    assert short.encode(text).ids.tolist() == full[:4].tolist() + [full[-1]]
    assert tokenizer.encode(text).ids.tolist() == full.tolist()
    assert copy.deepcopy(short).max_length == 5
    with pytest.raises(normrt.InvalidArgumentError):
        short.max_length = 1  # cannot hold [CLS] and [SEP]


def test_token_ids_and_vocabulary():
    tokenizer = normrt.Tokenizer.from_folder(str(support.TEXT_FIXTURES / "bert_uncased"))
    assert tokenizer.token_id("[CLS]") == tokenizer.encode("").ids[0]
    assert tokenizer.token_id("no such token at all") is None
    assert tokenizer.vocab_size > 200


def test_minilm_tokenizer_reads_sentence_transformers_max_length(minilm_dir):
    tokenizer = normrt.Tokenizer.from_folder(str(minilm_dir))
    assert tokenizer.max_length == 256
    assert "sentence_bert_config.json" in tokenizer.description
    assert len(tokenizer.encode("word " * 1000)) == 256
