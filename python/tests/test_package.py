"""The installed package: its version is the CMake project's, it ships type
stubs and py.typed, and the README's one-liner works."""

import ast
import re
import subprocess
import sys
from pathlib import Path

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
    assert "def run(self, inputs: Mapping[str, numpy.typing.ArrayLike] | None = None)" in stub


def test_readme_one_liner(minilm, minilm_dir):
    readme = (support.REPO / "README.md").read_text()
    snippet = re.search(r'python -c "(import normrt;[^"]*)"', readme)
    assert snippet, "README.md has no python -c \"import normrt; ...\" line"
    code = snippet.group(1).replace("minilm.nrmt", str(minilm)).replace(
        "build/models/all-MiniLM-L6-v2", str(minilm_dir))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert "(384,)" in result.stdout or "384" in result.stdout, result.stdout
