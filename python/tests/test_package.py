"""The installed package: its version is the CMake project's, it ships type
stubs and py.typed, and the README's one-liner works."""

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

import normrt
import support


def test_version_is_the_libraries():
    cmake = (support.REPO / "CMakeLists.txt").read_text()
    project = re.search(r"project\(normrt VERSION ([0-9.]+)", cmake).group(1)
    assert normrt.__version__ == normrt.version() == project
    from importlib.metadata import version

    assert version("normrt") == project


def test_stubs_and_py_typed_are_installed():
    package = Path(normrt.__file__).parent
    assert (package / "py.typed").is_file()
    stub = (package / "_normrt.pyi").read_text()
    tree = ast.parse(stub)
    classes = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    assert {"Model", "Session", "Tokenizer", "Encoding", "TensorInfo", "Error",
            "InvalidArgumentError", "LoadError", "RunError"} <= classes
    assert ("def run(self, inputs: Mapping[str, numpy.typing.ArrayLike] | None = None, "
            "attention_mask: numpy.typing.ArrayLike | None = None)") in stub


def test_readme_one_liner(minilm, minilm_dir):
    readme = (support.REPO / "README.md").read_text()
    snippet = re.search(r'python -c "(import normrt;[^"]*)"', readme)
    assert snippet, "README.md has no python -c \"import normrt; ...\" line"
    code = snippet.group(1).replace("minilm.nrmt", str(minilm)).replace(
        "build/models/all-MiniLM-L6-v2", str(minilm_dir))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert "(384,)" in result.stdout or "384" in result.stdout, result.stdout


TYPED_USE = """
import numpy as np
import numpy.typing as npt
import normrt

model = normrt.Model("m.nrmt", isa="", fuse=True)
session = normrt.Session(model, threads=1)
outputs: dict[str, npt.NDArray[np.float32]] = session.run({"input_ids": np.array([1, 2])})
tokenizer = normrt.Tokenizer.from_folder("folder")
ids: npt.NDArray[np.int32] = tokenizer.encode("x").ids
maybe: int | None = tokenizer.token_id("[CLS]")
encoder = normrt.SentenceEncoder(model, tokenizer)
vectors: npt.NDArray[np.float32] = encoder.encode(["a"], batch_size=4, normalize_embeddings=True)
shape: tuple[int, ...] = model.inputs[0].shape
error: type[normrt.Error] = normrt.LoadError
version: str = normrt.__version__
"""


def test_the_package_type_checks_with_its_stubs(tmp_path):
    """mypy --strict on the installed package and on typical use: the stubs
    hold every class and numpy-typed signatures."""
    mypy = pytest.importorskip("mypy.api")
    use = tmp_path / "use.py"
    use.write_text(TYPED_USE)
    for target in (["-p", "normrt"], [str(use)]):
        out, err, status = mypy.run(["--strict", "--no-incremental", *target])
        assert status == 0, out + err
