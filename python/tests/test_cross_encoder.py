"""CrossEncoder against transformers' float64 logits of the tiny classifier
fixtures (tests/models/encoders: a BERT classifier with token types and 3
labels, an XLM-R reranker with 1 label, a DistilBERT classifier with 2),
converted from their folders with
the tokenizer stored; the activation, softmax and rank conventions as
sentence-transformers' CrossEncoder has them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import normrt
import support

ENCODER_FIXTURES = support.REPO / "tests/models/encoders"


def read_cases(name: str) -> tuple[list[tuple[str, str, str | None]], dict[str, np.ndarray]]:
    """(label, first, second) of the text cases, and each case's float64 logits."""
    cases, logits = [], {}
    for line in (ENCODER_FIXTURES / f"{name}.expected.txt").read_text().splitlines():
        fields = line.split()
        if fields[0] == "case" and fields[2] != "-":
            first = bytes.fromhex(fields[2]).decode()
            second = None if fields[3] == "-" else bytes.fromhex(fields[3]).decode()
            cases.append((fields[1], first, second))
        elif fields[0] == "output" and fields[2] == "logits":
            logits[fields[1]] = np.array([float(v) for v in fields[5:]], dtype=np.float64)
    return cases, logits


@pytest.fixture(scope="module", params=["tiny_bert_cls", "tiny_xlmr_cls", "tiny_distilbert_cls"])
def classifier(request, models) -> dict:
    name = request.param
    path = support.convert_folder(ENCODER_FIXTURES / name, models / f"{name}.ce.nrmt")
    cases, logits = read_cases(name)
    return {"name": name, "path": path, "cases": cases, "logits": logits}


def test_raw_logits_match_transformers(classifier):
    encoder = normrt.CrossEncoder(classifier["path"])
    pairs = [(first, second) for _, first, second in classifier["cases"] if second is not None]
    labels = [label for label, _, second in classifier["cases"] if second is not None]
    assert len(pairs) >= 2
    got = encoder.predict(pairs, activation_fn=lambda x: x)
    want = np.stack([classifier["logits"][label] for label in labels])
    if encoder.num_labels == 1:
        want = want[:, 0]
    support.assert_close(got, want, 1e-5, 1e-4, f"{classifier['name']} pair logits")


def test_single_texts_and_one_pair(classifier):
    encoder = normrt.CrossEncoder(classifier["path"])
    for label, first, second in classifier["cases"]:
        want = classifier["logits"][label]
        if second is None:
            got = encoder.predict([(first,)], activation_fn=lambda x: x)[0]
        else:
            got = encoder.predict((first, second), activation_fn=lambda x: x)  # one pair
        support.assert_close(np.atleast_1d(got), want, 1e-5, 1e-4, f"{label}")


def test_batches_give_each_pair_within_1e6_of_batch_1(classifier):
    encoder = normrt.CrossEncoder(classifier["path"])
    assert encoder.model.batch_refusal == ""
    pairs = [(first, second or "") for _, first, second in classifier["cases"]] * 3
    one = encoder.predict(pairs, batch_size=1, activation_fn=lambda x: x)
    for batch_size in (2, 5, 32):
        got = encoder.predict(pairs, batch_size=batch_size, activation_fn=lambda x: x)
        scale = np.max(np.abs(one))
        support.assert_close(got, one.astype(np.float64), 1e-6 * scale, 0, f"batch {batch_size}")


def test_default_activation_and_softmax_follow_sentence_transformers(classifier):
    encoder = normrt.CrossEncoder(classifier["path"])
    pairs = [(first, second) for _, first, second in classifier["cases"] if second is not None]
    raw = encoder.predict(pairs, activation_fn=lambda x: x).astype(np.float64)
    scores = encoder.predict(pairs)
    if encoder.num_labels == 1:  # sigmoid by default
        support.assert_close(scores, 1 / (1 + np.exp(-raw)), 1e-7, 1e-6, "sigmoid")
    else:  # identity by default; softmax on request
        support.assert_close(scores, raw, 0, 0, "identity")
        soft = encoder.predict(pairs, apply_softmax=True)
        e = np.exp(raw - raw.max(axis=1, keepdims=True))
        support.assert_close(soft, e / e.sum(axis=1, keepdims=True), 1e-7, 1e-6, "softmax")


def test_rank_orders_by_score_and_refuses_multi_label_models(classifier):
    encoder = normrt.CrossEncoder(classifier["path"])
    documents = ["The quick brown fox is six years old.", "Paris is in France.", "", "fox fox fox"]
    if encoder.num_labels != 1:
        with pytest.raises(normrt.InvalidArgumentError, match="one-label model"):
            encoder.rank("how old is the fox?", documents)
        return
    scores = encoder.predict([("how old is the fox?", d) for d in documents])
    ranked = encoder.rank("how old is the fox?", documents, top_k=3, return_documents=True)
    assert [r["corpus_id"] for r in ranked] == list(np.argsort(-scores, kind="stable")[:3])
    assert [r["text"] for r in ranked] == [documents[r["corpus_id"]] for r in ranked]
    assert all(abs(r["score"] - float(scores[r["corpus_id"]])) == 0 for r in ranked)


def test_bad_input_is_named(classifier):
    encoder = normrt.CrossEncoder(classifier["path"])
    with pytest.raises(normrt.InvalidArgumentError, match=r"sentences\[1\] must be a \(text, text\)"):
        encoder.predict([("a", "b"), ("a", 3)])
    with pytest.raises(normrt.InvalidArgumentError, match="batch_size must be a positive int"):
        encoder.predict([("a", "b")], batch_size=0)


def test_a_sentence_encoder_is_not_a_cross_encoder(tiny_bert):
    with pytest.raises(normrt.InvalidArgumentError, match="a cross-encoder takes input_ids"):
        normrt.CrossEncoder(tiny_bert["pooled"])
