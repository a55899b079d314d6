#!/usr/bin/env python3
"""Exports a PyTorch model for normrt-convert: its state_dict as safetensors
plus the model's config as JSON (docs/models_rnn.md lists the RNN and MLP keys).

The safetensors format is written here with struct + json (no PyPI package):
an 8-byte little-endian header length, a JSON header
{name: {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {..}}
padded with spaces to a multiple of 8 bytes, then the tensors' bytes, row-major,
little-endian, in header order.

As a library:  export(model_or_state_dict, config, "out/model")
               → out/model.safetensors, out/model.json
From a shell:  export_torch.py state_dict.pt config.json out/model
               (state_dict.pt made by torch.save(model.state_dict(), ...))
"""
import json
import struct
import sys

import torch

_DTYPES = {
    torch.float32: "F32",
    torch.float16: "F16",
    torch.bfloat16: "BF16",
    torch.float64: "F64",
    torch.int64: "I64",
    torch.int32: "I32",
    torch.int16: "I16",
    torch.int8: "I8",
    torch.uint8: "U8",
    torch.bool: "BOOL",
}


def _tensor_bytes(tensor):
    tensor = tensor.detach().cpu().contiguous()
    if tensor.dtype == torch.bfloat16:  # numpy has no bfloat16: take the raw bits
        return tensor.view(torch.int16).numpy().astype("<i2").tobytes()
    array = tensor.numpy()
    return array.astype(array.dtype.newbyteorder("<")).tobytes()


def save_safetensors(path, tensors, metadata=None):
    """Writes {name: torch.Tensor} to `path` in header (dict) order."""
    header, blobs, offset = {}, [], 0
    for name, tensor in tensors.items():
        if tensor.dtype not in _DTYPES:
            raise ValueError(f"tensor '{name}': dtype {tensor.dtype} has no safetensors name")
        blob = _tensor_bytes(tensor)
        header[name] = {
            "dtype": _DTYPES[tensor.dtype],
            "shape": list(tensor.shape),
            "data_offsets": [offset, offset + len(blob)],
        }
        blobs.append(blob)
        offset += len(blob)
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)


def export(model, config, prefix):
    """Writes <prefix>.safetensors (the state_dict) and <prefix>.json (config)."""
    state = model.state_dict() if isinstance(model, torch.nn.Module) else model
    save_safetensors(prefix + ".safetensors", dict(state), {"format": "pt"})
    with open(prefix + ".json", "w") as f:
        json.dump(config, f, indent=2, sort_keys=True)
        f.write("\n")


def main(argv):
    if len(argv) != 4:
        sys.exit(f"usage: {argv[0]} state_dict.pt config.json out_prefix")
    state = torch.load(argv[1], map_location="cpu")
    with open(argv[2]) as f:
        config = json.load(f)
    export(state, config, argv[3])


if __name__ == "__main__":
    main(sys.argv)
