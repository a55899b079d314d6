"""SentenceEncoder: per text the Session's result on the tokenizer's ids;
against sentence-transformers on the real all-MiniLM-L6-v2 (cosine ≥ 0.99999
for every text, texts of 129–256 tokens and one truncated at 256 included).

The sentence-transformers reference is committed (fixtures/, written by
make_st_reference.py), so the comparison needs neither torch nor
sentence-transformers here; test_live_sentence_transformers recomputes it
when an interpreter with sentence-transformers is at hand (NORMRT_ST_PYTHON,
or this one)."""

import importlib.util
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import normrt
import support
from sentences import SENTENCES

HERE = Path(__file__).parent
REFERENCE = HERE / "fixtures" / "minilm_sentence_transformers.npy"
MIN_COSINE = 0.99999

TEXTS = ["the cat sat on the mat", "", "a b c", "The dog RAN; the cat sat!", "zebra " * 30]


@pytest.fixture(scope="module")
def tiny_vocab(tmp_path_factory):
    """A WordPiece vocabulary of 64 tokens for tiny_bert (vocab_size 64)."""
    words = ("the cat sat on mat dog ran a b c d e f g h i j k l m n o p q r s t u v w x y z "
             "##s ##ed ##ing ; ! , . ? - zebra red blue green one two three four five six "
             "seven eight nine ten big small fast").split()
    tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + words
    assert len(tokens) == 64, len(tokens)
    folder = tmp_path_factory.mktemp("tiny_vocab")
    (folder / "vocab.txt").write_text("\n".join(tokens) + "\n")
    return folder


def encoder_of(path, folder):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the 512 vs 40 truncation warning: tested below
        return normrt.SentenceEncoder(str(path), tokenizer=str(folder))


def test_each_row_is_the_sessions_result_on_the_tokenizers_ids(tiny_bert, tiny_vocab):
    encoder = encoder_of(tiny_bert["pooled"], tiny_vocab)
    got = encoder.encode(TEXTS, batch_size=1)  # one by one: bit-identical to a run
    assert got.dtype == np.float32 and got.shape == (len(TEXTS), 32)
    session = normrt.Session(normrt.Model(str(tiny_bert["pooled"])))
    for row, text in enumerate(TEXTS):
        ids = encoder.tokenizer.encode(text).ids
        want = session.run({"input_ids": ids})["embedding"][0]
        assert got[row].tobytes() == want.tobytes(), text
    assert encoder.encode(TEXTS[0]).tobytes() == got[0].tobytes()  # one str → one row
    assert encoder.encode(TEXTS[0]).shape == (32,)
    assert encoder.encode([]).shape == (0, 32)


def test_batches_give_each_row_within_1e6_of_batch_1_and_are_checked(tiny_bert, tiny_vocab):
    encoder = encoder_of(tiny_bert["pooled"], tiny_vocab)
    assert encoder.model.batch_refusal == ""
    texts = TEXTS + ["a", "the cat sat on the mat " * 3, "b c d"]
    want = encoder.encode(texts, batch_size=1)
    for batch_size in (2, 3, 32, 1000):
        got = encoder.encode(texts, batch_size=batch_size)
        scale = np.abs(want).max(axis=1, keepdims=True)
        assert (np.abs(got - want) <= 1e-6 * scale).all(), batch_size
    for bad in (0, -1, 2.5, True, "8"):
        with pytest.raises(normrt.InvalidArgumentError, match="batch_size"):
            encoder.encode(TEXTS, batch_size=bad)
    with pytest.raises(normrt.InvalidArgumentError, match=r"sentences\[1\] is a int"):
        encoder.encode(["text", 3])


def test_session_batches_pack_the_real_tokens(tiny_bert):
    model = normrt.Model(str(tiny_bert["plain"]))
    session = normrt.Session(model, max_batch=3)
    one = normrt.Session(model)
    sequences = [[2, 10, 11, 3], [2, 5, 3], [2, 3]]
    ids = np.zeros((3, 4), np.int64)
    mask = np.zeros((3, 4), np.int64)
    for r, s in enumerate(sequences):
        ids[r, :len(s)], mask[r, :len(s)] = s, 1
    out = session.run({"input_ids": ids}, attention_mask=mask)["last_hidden_state"]
    assert out.shape == (9, 32)  # 4 + 3 + 2 real tokens, packed
    row = 0
    for s in sequences:
        want = one.run({"input_ids": s})["last_hidden_state"]
        support.assert_close(out[row:row + len(s)], want.astype(np.float64), 1e-6, 1e-5, str(s))
        row += len(s)
    with pytest.raises(normrt.InvalidArgumentError, match="1 after a 0"):
        session.set_attention_mask([[0, 1, 1, 1]] * 3)
    with pytest.raises(normrt.InvalidArgumentError, match="max_batch 1"):
        one.run({"input_ids": ids})
    session.set_attention_mask(None)  # cleared: all 12 tokens real
    assert session.run({"input_ids": ids})["last_hidden_state"].shape == (12, 32)


def test_a_model_without_pooling_is_pooled_here(tiny_bert, tiny_vocab):
    pooled = encoder_of(tiny_bert["pooled"], tiny_vocab).encode(TEXTS)
    encoder = encoder_of(tiny_bert["plain"], tiny_vocab)
    normalized = encoder.encode(TEXTS, normalize_embeddings=True)
    support.assert_close(normalized, pooled.astype(np.float64), 1e-6, 1e-5, "mean + L2 in numpy")
    raw = encoder.encode(TEXTS)
    session = normrt.Session(normrt.Model(str(tiny_bert["plain"])))
    hidden = session.run({"input_ids": encoder.tokenizer.encode(TEXTS[0]).ids})
    support.assert_close(raw[0], hidden["last_hidden_state"].astype(np.float64).mean(axis=0),
                         1e-6, 1e-5, "mean")


def test_texts_beyond_the_models_maximum_are_truncated_with_a_warning(tiny_bert, tiny_vocab):
    tokenizer = normrt.Tokenizer.from_folder(str(tiny_vocab))
    assert tokenizer.max_length == 512
    with pytest.warns(UserWarning, match="at most 40 tokens"):
        encoder = normrt.SentenceEncoder(str(tiny_bert["pooled"]), tokenizer=tokenizer)
    assert tokenizer.max_length == 512  # the caller's tokenizer is left as it was
    assert encoder.tokenizer.max_length == 40
    long_text = "the cat sat on the mat " * 20
    ids = tokenizer.encode(long_text).ids
    kept = np.concatenate([ids[:39], ids[-1:]])  # [CLS] 38 pieces [SEP]
    session = normrt.Session(normrt.Model(str(tiny_bert["pooled"])))
    want = session.run({"input_ids": kept})["embedding"][0]
    assert encoder.encode(long_text).tobytes() == want.tobytes()


def cosines(a, b):
    a, b = a.astype(np.float64), b.astype(np.float64)
    return (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def check_against(got, want):
    assert got.shape == want.shape
    cos = cosines(got, want)
    worst = int(np.argmin(cos))
    assert cos.min() >= MIN_COSINE, (
        f"text {worst} {SENTENCES[worst][:40]!r}: cosine {cos[worst]:.8f} < {MIN_COSINE}"
    )


def test_matches_sentence_transformers_on_minilm(minilm, minilm_dir):
    encoder = normrt.SentenceEncoder(str(minilm), tokenizer=str(minilm_dir))
    assert encoder.dimension == 384 and encoder.tokenizer.max_length == 256
    lengths = [len(normrt.Tokenizer.from_folder(str(minilm_dir), max_length=100000).encode(s))
               for s in SENTENCES]
    assert len(SENTENCES) >= 20
    assert sum(129 <= n <= 256 for n in lengths) >= 4 and max(lengths) > 256
    got = encoder.encode(SENTENCES, batch_size=8, normalize_embeddings=True)
    check_against(got, np.load(REFERENCE))
    assert np.allclose(np.linalg.norm(got, axis=1), 1, atol=1e-6)


def sentence_transformers_python():
    explicit = os.environ.get("NORMRT_ST_PYTHON")
    if explicit:
        return explicit
    if importlib.util.find_spec("sentence_transformers") is not None:
        return sys.executable
    return None


def test_live_sentence_transformers(minilm, minilm_dir, tmp_path):
    python = sentence_transformers_python()
    if python is None:
        pytest.skip("no interpreter with sentence-transformers (set NORMRT_ST_PYTHON); "
                    "the committed reference was compared above")
    output = tmp_path / "live.npy"
    subprocess.run([python, str(HERE / "make_st_reference.py"), str(minilm_dir),
                    "--output", str(output)], check=True, capture_output=True)
    live = np.load(output)
    encoder = normrt.SentenceEncoder(str(minilm), tokenizer=str(minilm_dir))
    check_against(encoder.encode(SENTENCES), live)
    check_against(np.load(REFERENCE), live)  # the committed fixture is still what it computes
