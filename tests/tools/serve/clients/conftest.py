"""The real OpenAI, LangChain and Triton clients from PyPI against the real
normrt-serve binary on loopback (scripts/test_clients.sh; docs/serve.md).

The server serves all-MiniLM-L6-v2 (NORMRT_MINILM_DIR, converted here by
normrt-convert) when it was fetched, else the tiny BERT fixture with a
64-token vocabulary; the tests that compare with PyTorch's embeddings
(tests/models/transformer/minilm_expected.txt) need MiniLM and skip, saying
so, without it. Binaries: NORMRT_BUILD_DIR (default build/release).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[4]
BUILD = Path(os.environ.get("NORMRT_BUILD_DIR", ROOT / "build" / "release"))
SERVE = BUILD / "tools" / "serve" / "normrt-serve"
CONVERT = BUILD / "tools" / "convert" / "normrt-convert"
MINILM_EXPECTED = ROOT / "tests" / "models" / "transformer" / "minilm_expected.txt"

# The main name and the alias LangChain's OpenAIEmbeddings sends by default.
SERVED_NAME = "minilm"
LANGCHAIN_DEFAULT_MODEL = "text-embedding-ada-002"


@dataclass
class Reference:
    """PyTorch's float64 embeddings of a few sentences, with HF's token ids."""

    sentences: list[str] = field(default_factory=list)
    ids: list[list[int]] = field(default_factory=list)
    embeddings: list[np.ndarray] = field(default_factory=list)


def read_reference() -> Reference:
    ref = Reference()
    for line in MINILM_EXPECTED.read_text().splitlines():
        parts = line.split()
        if parts[0] == "sentence":
            ref.sentences.append(bytes.fromhex(parts[1]).decode("utf-8"))
            count = int(parts[2])
            ref.ids.append([int(x) for x in parts[3 : 3 + count]])
        elif parts[0] == "embedding":
            ref.embeddings.append(np.array([float(x) for x in parts[2:]], dtype=np.float64))
    return ref


@dataclass
class Model:
    path: Path
    vocab: Path
    is_minilm: bool
    width: int
    sentences: list[str]


def tiny_vocab(path: Path) -> Path:
    tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat", "on", "mat",
              "alpha", "beta", "gamma", "delta", "##s", ",", "."]
    tokens += [f"w{i}" for i in range(64 - len(tokens))]
    path.write_text("\n".join(tokens) + "\n")
    return path


def convert(args: list[str]) -> None:
    done = subprocess.run([str(CONVERT), "--quiet", *args], capture_output=True, text=True)
    assert done.returncode == 0, f"normrt-convert {args}: {done.stderr}"


@pytest.fixture(scope="session")
def model(tmp_path_factory) -> Model:
    assert SERVE.exists(), f"{SERVE} is not built (cmake --build build/release --target normrt-serve)"
    folder = tmp_path_factory.mktemp("models")
    minilm = os.environ.get("NORMRT_MINILM_DIR")
    if minilm and (Path(minilm) / "model.safetensors").exists():
        out = folder / "minilm.nrmt"
        convert(["--config", f"{minilm}/config.json", "--weights", f"{minilm}/model.safetensors",
                 "--output", str(out), "--pooling", "mean", "--max-seq", "128"])
        return Model(out, Path(minilm) / "vocab.txt", True, 384, read_reference().sentences)
    out = folder / "tiny.nrmt"
    convert(["--config", str(ROOT / "tests/tools/serve/tiny_bert_gelu.config.json"),
             "--weights", str(ROOT / "tests/models/transformer/tiny_bert_gelu.safetensors"),
             "--output", str(out), "--pooling", "mean", "--max-seq", "16"])
    sentences = ["the cat sat on the mat.", "alpha beta", "Gamma, delta!", "cats", "zebra"]
    return Model(out, tiny_vocab(folder / "vocab.txt"), False, 32, sentences)


@pytest.fixture(scope="session")
def reference(model) -> Reference:
    if not model.is_minilm:
        pytest.skip("all-MiniLM-L6-v2 was not fetched (scripts/fetch_minilm.sh): "
                    "no PyTorch reference for the tiny model")
    return read_reference()


class Server:
    """normrt-serve on a free loopback port; stopped with SIGTERM (exit 0)."""

    def __init__(self, model: Model, *extra: str):
        args = [str(SERVE), str(model.path), "--vocab", str(model.vocab), "--port", "0",
                "--workers", "2", "--served-name", SERVED_NAME,
                "--served-name", LANGCHAIN_DEFAULT_MODEL, *extra]
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True)
        line = self.process.stdout.readline()
        match = re.match(r"listening on http://127\.0\.0\.1:(\d+)", line)
        assert match, f"normrt-serve did not start: {line!r} {self.process.stderr.read()}"
        self.port = int(match.group(1))
        self.url = f"http://127.0.0.1:{self.port}"

    def get(self, path: str) -> tuple[int, dict, bytes]:
        try:
            with urllib.request.urlopen(self.url + path, timeout=30) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return -1


@pytest.fixture(scope="session")
def server(model):
    s = Server(model)
    yield s
    assert s.stop() == 0, "normrt-serve did not stop cleanly on SIGTERM"


def check_close(got, want: np.ndarray, what: str) -> None:
    """test_minilm's f32 bounds against PyTorch's float64 embedding."""
    got = np.asarray(got, dtype=np.float64)
    cosine = float(got @ want / (np.linalg.norm(got) * np.linalg.norm(want)))
    worst = float(np.max(np.abs(got - want)))
    assert cosine >= 0.9999 and worst <= 1e-4, f"{what}: cosine {cosine}, max |diff| {worst}"


def metric(server: Server, name: str, **labels: str) -> float:
    """One sample of GET /metrics (0 if absent)."""
    status, _, body = server.get("/metrics")
    assert status == 200
    want = ",".join(f'{k}="{v}"' for k, v in labels.items())
    for line in body.decode().splitlines():
        if line.startswith(f"{name}{{{want}}} ") or (not labels and line.startswith(name + " ")):
            return float(line.rsplit(" ", 1)[1])
    return 0.0
