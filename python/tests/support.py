"""Helpers of the Python package's tests: fixture readers, the converter, a
ctypes client of the C API (the reference the bindings must match bit for
bit), and a random BERT writer. Only numpy and the standard library."""

from __future__ import annotations

import ctypes
import json
import os
import struct
import subprocess
from pathlib import Path

import numpy as np

REPO = Path(os.environ.get("NORMRT_SOURCE_DIR", Path(__file__).resolve().parents[2]))
BERT_FIXTURES = REPO / "tests/models/transformer"
RNN_FIXTURES = REPO / "tests/models/rnn/fixtures"
TEXT_FIXTURES = REPO / "tests/tools/text/fixtures"


def build_dir() -> Path:
    return Path(os.environ.get("NORMRT_BUILD_DIR", REPO / "build/release"))


def tool(name: str) -> Path:
    sub = {"normrt-convert": "convert", "normrt-run": "run"}[name]
    path = build_dir() / "tools" / sub / name
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} is missing: build it (cmake --build build/release --target {name}) "
            "or set NORMRT_BUILD_DIR (scripts/test_python.sh does both)"
        )
    return path


def convert(config: Path, weights: Path, output: Path, *extra: str) -> Path:
    result = subprocess.run(
        [str(tool("normrt-convert")), "--config", str(config), "--weights", str(weights),
         "--output", str(output), "--quiet", *extra],
        capture_output=True, text=True,
    )
    if result.returncode != 0:
        raise RuntimeError(f"normrt-convert failed:\n{result.stdout}{result.stderr}")
    return output


def convert_folder(folder: Path, output: Path, *extra: str) -> Path:
    """normrt-convert --model folder: everything from the folder's files."""
    result = subprocess.run(
        [str(tool("normrt-convert")), "--model", str(folder), "--output", str(output), "--quiet",
         *extra],
        capture_output=True, text=True,
    )
    if result.returncode != 0:
        raise RuntimeError(f"normrt-convert failed:\n{result.stdout}{result.stderr}")
    return output


# --- safetensors (the format is 8 bytes of header length, JSON, raw data) ---

_DTYPES = {"F32": np.float32, "F64": np.float64, "I32": np.int32, "I64": np.int64}


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    data = Path(path).read_bytes()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + length])
    body = data[8 + length :]
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        array = np.frombuffer(body[begin:end], dtype=_DTYPES[info["dtype"]])
        tensors[name] = array.reshape(info["shape"]).copy()
    return tensors


def write_safetensors(path: Path, tensors: dict[str, np.ndarray]) -> None:
    header, offset, blobs = {}, 0, []
    for name, array in tensors.items():
        blob = np.ascontiguousarray(array, dtype=np.float32).tobytes()
        header[name] = {"dtype": "F32", "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(blob)]}
        offset += len(blob)
        blobs.append(blob)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    Path(path).write_bytes(struct.pack("<Q", len(text)) + text + b"".join(blobs))


# --- the tiny BERT fixtures (make_tiny_bert_fixtures.py) ---

class BertFixture:
    """<name>.expected.txt: config, ids, PyTorch's float64 outputs."""

    def __init__(self, name: str):
        self.name = name
        self.weights = BERT_FIXTURES / f"{name}.safetensors"
        self.outputs: dict[str, np.ndarray] = {}
        for line in (BERT_FIXTURES / f"{name}.expected.txt").read_text().splitlines():
            key, *fields = line.split()
            if key == "config":
                (vocab, hidden, layers, heads, inter, act, max_pos, type_vocab, eps, _) = fields
                self.config = {
                    "architectures": ["BertModel"], "model_type": "bert",
                    "vocab_size": int(vocab), "hidden_size": int(hidden),
                    "num_hidden_layers": int(layers), "num_attention_heads": int(heads),
                    "intermediate_size": int(inter), "hidden_act": act,
                    "max_position_embeddings": int(max_pos),
                    "type_vocab_size": int(type_vocab), "layer_norm_eps": float(eps),
                }
            elif key == "ids":
                self.ids = np.array([int(v) for v in fields[1:]], dtype=np.int32)
            else:
                s, rows, cols = int(fields[0]), int(fields[1]), int(fields[2])
                values = np.array([float(v) for v in fields[3:]], dtype=np.float64)
                self.outputs[f"{key}@{s}"] = values.reshape(rows, cols)

    def convert(self, folder: Path, *extra: str) -> Path:
        config = folder / f"{self.name}.config.json"
        config.write_text(json.dumps(self.config))
        suffix = "_".join(e.strip("-") for e in extra) or "plain"
        return convert(config, self.weights, folder / f"{self.name}.{suffix}.nrmt", *extra)


def assert_close(got: np.ndarray, want: np.ndarray, atol: float, rtol: float, what: str) -> None:
    """|got − want| ≤ atol + rtol·|want| everywhere, naming the worst index."""
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    error = np.abs(got.astype(np.float64) - want)
    bound = atol + rtol * np.abs(want)
    worst = np.unravel_index(np.argmax(error - bound), error.shape)
    assert np.all(error <= bound), (
        f"{what}: at {worst} got {got[worst]!r}, want {want[worst]!r}, "
        f"|diff| {error[worst]:.3g} > {bound[worst]:.3g}"
    )


# --- the C API through ctypes: the C++ result, bit for bit ---

class CApi:
    """libnormrt.so's C API (include/normrt/normrt.h), enough to run a model."""

    MAX_RANK = 4

    def __init__(self):
        path = build_dir() / "runtime" / "libnormrt.so"
        if not path.is_file():
            raise FileNotFoundError(f"{path} is missing (cmake --build build/release --target normrt)")
        self.lib = lib = ctypes.CDLL(str(path))
        vp, sz, cp = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p
        lib.normrt_last_error.restype = cp
        lib.normrt_model_load.argtypes = [cp, vp, ctypes.POINTER(vp)]
        lib.normrt_model_destroy.argtypes = [vp]
        lib.normrt_session_create.argtypes = [vp, vp, ctypes.POINTER(vp)]
        lib.normrt_session_destroy.argtypes = [vp]
        lib.normrt_session_set_input_typed.argtypes = [vp, cp, ctypes.c_int, vp,
                                                       ctypes.POINTER(sz), sz]
        lib.normrt_session_run.argtypes = [vp]
        lib.normrt_session_output.argtypes = [vp, cp, ctypes.POINTER(vp), ctypes.POINTER(sz),
                                              ctypes.POINTER(sz)]

    def _check(self, status: int, what: str) -> None:
        if status != 0:
            raise RuntimeError(f"{what}: {self.lib.normrt_last_error().decode()}")

    def run(self, model_path: Path, inputs: dict[str, np.ndarray], output: str) -> np.ndarray:
        """Loads, runs once, returns a copy of `output` (float32)."""
        lib, vp, sz = self.lib, ctypes.c_void_p, ctypes.c_size_t
        model, session = vp(), vp()
        self._check(lib.normrt_model_load(str(model_path).encode(), None, ctypes.byref(model)),
                    "load")
        try:
            self._check(lib.normrt_session_create(model, None, ctypes.byref(session)), "session")
            try:
                dtypes = {np.dtype(np.float32): 1, np.dtype(np.int32): 2, np.dtype(np.int64): 3}
                kept = []
                for name, array in inputs.items():
                    array = np.ascontiguousarray(array)
                    kept.append(array)
                    shape = (sz * array.ndim)(*array.shape)
                    self._check(lib.normrt_session_set_input_typed(
                        session, name.encode(), dtypes[array.dtype],
                        array.ctypes.data_as(vp), shape, array.ndim), "set_input")
                self._check(lib.normrt_session_run(session), "run")
                data, shape, rank = vp(), (sz * self.MAX_RANK)(), sz()
                self._check(lib.normrt_session_output(session, output.encode(),
                                                      ctypes.byref(data), shape,
                                                      ctypes.byref(rank)), "output")
                dims = tuple(shape[i] for i in range(rank.value))
                count = int(np.prod(dims)) if dims else 1
                buffer = (ctypes.c_float * count).from_address(data.value)
                return np.frombuffer(buffer, dtype=np.float32).reshape(dims).copy()
            finally:
                lib.normrt_session_destroy(session)
        finally:
            lib.normrt_model_destroy(model)


def random_bert(folder: Path, *, hidden: int, layers: int, heads: int, intermediate: int,
                vocab: int, max_positions: int, seed: int = 0) -> tuple[Path, Path]:
    """A BERT config.json + model.safetensors with random weights (for models
    larger than the committed fixtures: runs long enough to time)."""
    rng = np.random.default_rng(seed)

    def w(*shape):
        return rng.normal(0.0, 0.02, size=shape).astype(np.float32)

    t = {
        "embeddings.word_embeddings.weight": w(vocab, hidden),
        "embeddings.position_embeddings.weight": w(max_positions, hidden),
        "embeddings.token_type_embeddings.weight": w(2, hidden),
        "embeddings.LayerNorm.weight": np.ones(hidden, np.float32),
        "embeddings.LayerNorm.bias": np.zeros(hidden, np.float32),
    }
    for i in range(layers):
        p = f"encoder.layer.{i}."
        for name in ("attention.self.query", "attention.self.key", "attention.self.value",
                     "attention.output.dense"):
            t[p + name + ".weight"] = w(hidden, hidden)
            t[p + name + ".bias"] = w(hidden)
        t[p + "attention.output.LayerNorm.weight"] = np.ones(hidden, np.float32)
        t[p + "attention.output.LayerNorm.bias"] = np.zeros(hidden, np.float32)
        t[p + "intermediate.dense.weight"] = w(intermediate, hidden)
        t[p + "intermediate.dense.bias"] = w(intermediate)
        t[p + "output.dense.weight"] = w(hidden, intermediate)
        t[p + "output.dense.bias"] = w(hidden)
        t[p + "output.LayerNorm.weight"] = np.ones(hidden, np.float32)
        t[p + "output.LayerNorm.bias"] = np.zeros(hidden, np.float32)
    config = folder / "config.json"
    config.write_text(json.dumps({
        "model_type": "bert", "vocab_size": vocab, "hidden_size": hidden,
        "num_hidden_layers": layers, "num_attention_heads": heads,
        "intermediate_size": intermediate, "hidden_act": "gelu",
        "max_position_embeddings": max_positions, "type_vocab_size": 2,
        "layer_norm_eps": 1e-12,
    }))
    weights = folder / "model.safetensors"
    write_safetensors(weights, t)
    return config, weights
