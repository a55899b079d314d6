#!/usr/bin/env python3
"""Writes the seed corpora of the reader fuzz targets (fuzz/corpus/<target>/):
small valid inputs that reach each reader's success path, plus a few that
stop at a specific check. Copies of the committed test fixtures are added
where they are small.

    python3 fuzz/make_reader_seeds.py        (from the repository root)

Also writes the hand-made regression inputs (fuzz/regressions/<target>/):
inputs that broke a reader before it was fixed, built here rather than
found by libFuzzer.

Needs only the standard library and numpy (Debian's python3-numpy). The
model_loader corpus comes from fuzz/make_model_seeds.cc instead.
"""
import io
import json
import os
import shutil
import struct
import zipfile
import zlib

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "fuzz", "corpus")


def write(target, name, data):
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def copy(target, source):
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    shutil.copy(os.path.join(ROOT, source), os.path.join(folder, os.path.basename(source)))


# ---- safetensors: [u64 header length][JSON header][data]
def safetensors(tensors, metadata=None):
    header, data = {}, b""
    for name, (dtype, shape, raw) in tensors.items():
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    if metadata is not None:
        header["__metadata__"] = metadata
    text = json.dumps(header, separators=(",", ":")).encode()
    return struct.pack("<Q", len(text)) + text + data


def safetensors_seeds():
    f32 = np.arange(6, dtype="<f4").tobytes()
    write("safetensors", "f32_2x3.safetensors", safetensors({"w": ("F32", [2, 3], f32)}))
    write("safetensors", "dtypes.safetensors", safetensors({
        "h": ("F16", [2], np.array([1.5, -2], dtype="<f2").tobytes()),
        "b": ("BF16", [1], b"\x80\x3f"),
        "d": ("F64", [], struct.pack("<d", 0.25)),
        "i": ("I64", [1], struct.pack("<q", -4)),
        "u": ("U8", [3], b"\x01\x02\x03"),
        "m": ("BOOL", [2], b"\x01\x00"),
        "e": ("F32", [0, 4], b""),
    }, metadata={"format": "pt"}))
    write("safetensors", "empty.safetensors", safetensors({}))
    copy("safetensors", "tests/tools/readers/fixtures/torch.safetensors")
    copy("safetensors", "tests/models/rnn/fixtures/gru_plain.io.safetensors")


# ---- npy: "\x93NUMPY" major minor, header length, dict literal, data
def npy(descr, shape, raw, version=(1, 0), fortran=False):
    shape_text = "(" + "".join(f"{d}, " for d in shape).rstrip(" ") + ")"
    if len(shape) > 1:
        shape_text = "(" + ", ".join(str(d) for d in shape) + ")"
    text = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape_text)
    length_format = "<H" if version[0] == 1 else "<I"
    prefix = 6 + 2 + struct.calcsize(length_format)
    padded = text + " " * ((64 - (prefix + len(text) + 1) % 64) % 64) + "\n"
    return (b"\x93NUMPY" + bytes(version) + struct.pack(length_format, len(padded)) +
            padded.encode("latin1") + raw)


def numpy_npy(array):
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def npy_seeds():
    write("npy", "f4_2x3.npy", numpy_npy(np.arange(6, dtype="<f4").reshape(2, 3)))
    write("npy", "f2_scalar.npy", numpy_npy(np.array(1.5, dtype="<f2")))
    write("npy", "i8_empty.npy", numpy_npy(np.zeros((0, 3), dtype="<i8")))
    write("npy", "b1.npy", numpy_npy(np.array([True, False])))
    write("npy", "u1_v2.npy", npy("|u1", [3], b"\x01\x02\x03", version=(2, 0)))
    write("npy", "f8_v3.npy", npy("<f8", [1], struct.pack("<d", -0.5), version=(3, 0)))
    write("npy", "long_dims.npy", npy("<i4", ["2L"], struct.pack("<ii", 7, -7)))
    write("npy", "big_endian.npy", npy(">f4", [1], b"\x3f\x80\x00\x00"))
    write("npy", "fortran.npy", npy("<f4", [1, 2], b"\x00" * 8, fortran=True))


# ---- npz: a zip of name.npy members, stored or deflated
def npz(members, compression):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():  # a fixed date: the same bytes on every run
            archive.writestr(zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0)), data,
                             compress_type=compression)
    return buffer.getvalue()


def npz_seeds():
    members = {"W.npy": numpy_npy(np.arange(4, dtype="<f4").reshape(2, 2)),
               "enc/b.npy": numpy_npy(np.array([0.5], dtype="<f2"))}
    write("npz", "stored.npz", npz(members, zipfile.ZIP_STORED))
    write("npz", "deflated.npz", npz(members, zipfile.ZIP_DEFLATED))
    write("npz", "not_npy_member.npz", npz({"readme.txt": b"hello"}, zipfile.ZIP_STORED))
    for name in ("numpy.npz", "numpy_compressed.npz", "fortran.npz"):
        copy("npz", "tests/tools/readers/fixtures/" + name)


# ---- JSON configs: normrt's RNN/MLP configs and Hugging Face config.json
def json_seeds():
    for name in ("lstm_draw_prms_norm", "gru_rms_norm", "mlp_layer_norm"):
        copy("json_config", f"tests/models/rnn/fixtures/{name}.json")
    copy("json_config", "tests/models/llama/tiny_llama.config.json")
    copy("json_config", "tests/models/seq2seq/post_prms_gelu_nofinal.config.json")
    copy("json_config", "tests/models/rnnsearch/fixtures/rnnsearch_rms_norm_tied.json")
    bert = {"architectures": ["BertModel"], "model_type": "bert", "vocab_size": 64,
            "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2,
            "intermediate_size": 16, "hidden_act": "gelu", "max_position_embeddings": 16,
            "type_vocab_size": 2, "layer_norm_eps": 1e-12, "position_embedding_type": "absolute",
            "pad_token_id": None}
    write("json_config", "bert.config.json", json.dumps(bert, indent=1))
    llama_old = {"model_type": "llama", "vocab_size": 32, "hidden_size": 8,
                 "intermediate_size": 16, "num_hidden_layers": 1, "num_attention_heads": 2,
                 "num_key_value_heads": 1, "head_dim": 4, "rope_theta": 500000.0,
                 "rope_scaling": None, "tie_word_embeddings": True, "attention_bias": False}
    write("json_config", "llama_rope_theta.config.json", json.dumps(llama_old))
    mlp = {"architecture": "ln_mlp", "input_size": 4, "hidden_sizes": [8, 8], "output_size": 2,
           "norm": "prms_norm", "p": 0.25, "eps": 1e-5, "gain_convention": "one_plus"}
    write("json_config", "mlp_prms.json", json.dumps(mlp))
    write("json_config", "escapes.json", '{"model_type": "b\\u0065rt", "x": [1e300, -0.0, 18446744073709551615, -9223372036854775808, "\\ud83d\\ude00"]}')


# ---- regression inputs crafted by hand (fuzz/regressions/<target>/)
def overlapping_members(count=16, member_bytes=1 << 20):
    """A 2 KB .npz whose `count` members share one deflate stream: each local
    header hides the next in its extra field, so every member's data starts at
    the same byte. Before npz_file.cc checked that the members' compressed
    sizes fit in the archive, it inflated count x 1 MiB from it (the bound
    is 1032 x 2 KB). Small members keep the fuzzer fast on its mutants."""
    buffer = io.BytesIO()
    np.save(buffer, np.zeros(member_bytes // 4, dtype="<f4"))
    member = buffer.getvalue()
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    stream = deflate.compress(member) + deflate.flush()
    crc = zlib.crc32(member)
    names = [b"a%d.npy" % i for i in range(count)]

    def local_header(name, extra):
        return struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0, crc, len(stream),
                           len(member), len(name), len(extra)) + name + extra

    headers = b""
    for name in reversed(names):  # header i's extra field (id 0xCAFE) holds headers i+1..
        extra = struct.pack("<HH", 0xCAFE, len(headers)) + headers if headers else b""
        headers = local_header(name, extra)
    offsets, offset = [], 0
    for name in names:
        offsets.append(offset)
        offset += 30 + len(name) + 4
    body = headers + stream
    directory = b"".join(
        struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0, crc, len(stream),
                    len(member), len(name), 0, 0, 0, 0, 0, at) + name
        for name, at in zip(names, offsets))
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, count, count, len(directory), len(body), 0)
    return body + directory + end


def regression_inputs():
    folder = os.path.join(ROOT, "fuzz", "regressions", "npz")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "overlapping_members.npz"), "wb") as f:
        f.write(overlapping_members())


if __name__ == "__main__":
    regression_inputs()
    safetensors_seeds()
    npy_seeds()
    npz_seeds()
    json_seeds()
