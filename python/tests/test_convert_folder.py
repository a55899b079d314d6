"""normrt-convert --model on folders sentence-transformers itself wrote
(make_st_folder.py around the tiny BERT fixture): CLS, mean and max pooling,
with and without a Normalize module, and the length it truncates at, all
read from the folder; the converted file with its stored tokenizer gives
encode()'s embeddings. Needs an interpreter with sentence-transformers
(NORMRT_ST_PYTHON, or this one); the real all-MiniLM-L6-v2 comparison
against a committed reference is in test_sentence_encoder.py."""

import json
import subprocess

import numpy as np
import pytest

import normrt
import support
from test_sentence_encoder import HERE, sentence_transformers_python

TEXTS = [
    "the cat sat on the mat",
    "",
    "The Dog RAN; the cat sat!",
    "zebras , blue green red",
    # beyond the 24 tokens the folder truncates at
    "the big cat sat on the small mat and the fast dog ran one two three four five six seven "
    "eight nine ten times",
]


@pytest.mark.parametrize("mode, normalize", [("cls", True), ("mean", True), ("max", False),
                                             ("cls", False)])
def test_a_folder_sentence_transformers_wrote_converts_with_no_flags(mode, normalize, tmp_path):
    python = sentence_transformers_python()
    if python is None:
        pytest.skip("no interpreter with sentence-transformers (set NORMRT_ST_PYTHON)")
    texts = tmp_path / "texts.json"
    texts.write_text(json.dumps(TEXTS))
    folder = tmp_path / f"st_{mode}"
    extra = [] if normalize else ["--no-normalize"]
    done = subprocess.run([python, str(HERE / "make_st_folder.py"), str(folder), mode,
                           "--texts", str(texts), *extra], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    path = support.convert_folder(folder, tmp_path / "model.nrmt")
    model = normrt.Model(str(path))
    assert model.max_sequence_length == 24
    assert model.metadata("pooling") == mode + ("_l2" if normalize else "")
    encoder = normrt.SentenceEncoder(model)  # the stored tokenizer
    assert encoder.tokenizer.max_length == 24
    assert len(encoder.tokenizer.encode(TEXTS[-1]).ids) == 24
    got = encoder.encode(TEXTS)
    support.assert_close(got, np.load(folder / "reference.npy").astype(np.float64), 1e-5, 1e-4,
                         f"{mode} pooling, normalize {normalize}")
