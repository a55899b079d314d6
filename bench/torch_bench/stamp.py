"""Reuse of slow derived files (ONNX exports, quantized copies, CTranslate2
conversions, random checkpoints) between runs: each output gets a
`<output>.stamp` holding the key it was made from (source sizes and mtimes,
library versions, options); a different key, a missing output or a missing
stamp means make it again."""
import json
import os
import shutil


def file_key(path):
    """Identifies a source file's version without reading it."""
    st = os.stat(path)
    return {"path": os.path.abspath(path), "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _stamp_path(output):
    return output.rstrip("/") + ".stamp"


def is_current(output, key):
    try:
        with open(_stamp_path(output)) as f:
            return os.path.exists(output) and json.load(f) == key
    except (OSError, ValueError):
        return False


def make(output, key, build):
    """build(output) unless `output` is current for `key`; returns output."""
    if is_current(output, key):
        return output
    stamp = _stamp_path(output)
    if os.path.exists(stamp):
        os.remove(stamp)
    if os.path.isdir(output):
        shutil.rmtree(output)
    build(output)
    with open(stamp, "w") as f:
        json.dump(key, f, sort_keys=True)
    return output
