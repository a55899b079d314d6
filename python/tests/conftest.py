"""Fixtures of the Python package's tests: model files converted once per
run by the build tree's normrt-convert (NORMRT_BUILD_DIR, default
build/release) from the committed PyTorch fixtures, and the real
all-MiniLM-L6-v2 when scripts/fetch_minilm.sh has fetched it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import support  # noqa: E402


@pytest.fixture(scope="session")
def models(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="session")
def tiny_bert(models) -> dict:
    """tiny_bert_gelu as last_hidden_state and as pooled embedding files."""
    fixture = support.BertFixture("tiny_bert_gelu")
    return {
        "fixture": fixture,
        "plain": fixture.convert(models),
        "pooled": fixture.convert(models, "--pooling", "mean"),
    }


@pytest.fixture(scope="session")
def mlp(models) -> dict:
    """The LN-MLP fixture: a float32 input x [S, 5], output logits [S, 4]."""
    d = support.RNN_FIXTURES
    return {
        "path": support.convert(d / "mlp_layer_norm.json", d / "mlp_layer_norm.safetensors",
                                models / "mlp.nrmt"),
        "io": support.read_safetensors(d / "mlp_layer_norm.io.safetensors"),
    }


@pytest.fixture(scope="session")
def lstm(models) -> dict:
    """The LN-LSTM fixture: x [S, 5] → h_seq [S, 7], with state between runs."""
    d = support.RNN_FIXTURES
    return {
        "path": support.convert(d / "lstm_layer_norm.json", d / "lstm_layer_norm.safetensors",
                                models / "lstm.nrmt"),
        "io": support.read_safetensors(d / "lstm_layer_norm.io.safetensors"),
    }


@pytest.fixture(scope="session")
def wide_bert(models) -> Path:
    """A random BERT whose run at S = 512 takes ~100 ms on one core: long
    enough to tell a released GIL from a held one."""
    folder = models / "wide_bert"
    folder.mkdir()
    config, weights = support.random_bert(folder, hidden=256, layers=16, heads=4,
                                          intermediate=1024, vocab=512, max_positions=512)
    return support.convert(config, weights, folder / "wide.nrmt")


@pytest.fixture(scope="session")
def minilm_dir() -> Path:
    folder = Path(os.environ.get("NORMRT_MINILM_DIR",
                                 support.REPO / "build/models/all-MiniLM-L6-v2"))
    if not (folder / "model.safetensors").is_file():
        pytest.skip(f"all-MiniLM-L6-v2 not at {folder} (scripts/fetch_minilm.sh fetches it; "
                    "NORMRT_MINILM_DIR points elsewhere)")
    return folder


@pytest.fixture(scope="session")
def minilm(models, minilm_dir) -> Path:
    """all-MiniLM-L6-v2 with mean pooling + normalization, S up to 256 (the
    max_seq_length sentence-transformers truncates at)."""
    return support.convert(minilm_dir / "config.json", minilm_dir / "model.safetensors",
                           models / "minilm.nrmt", "--pooling", "mean", "--max-seq", "256")


@pytest.fixture(scope="session")
def capi() -> support.CApi:
    return support.CApi()
