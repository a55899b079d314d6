#!/usr/bin/env python3
"""Random-weight models at the sizes of the seeds' experiments, for
normrt-bench's latency-per-normalization table (docs/bench.md, "The seeds'
systems"): each written as normrt-convert's inputs (a PyTorch-style
state_dict in safetensors plus normrt's JSON config) and converted.

  reader       the bidirectional attentive reader: dim 240 (the RMSNorm
               authors' training command), word and answer embeddings 400
               and 600, 409 answers (train_attentive_reader.py's defaults),
               question 16 words; norm rms_norm (rlnlstm)
  order        order embeddings: dim 1024, words 300, VGG features 4096
               (Vendrov et al.'s defaults); norm rms_norm (rlngru)
  handwriting  Graves' network: 3 layers of 400, 20 components, skip
               connections; norm layer_norm (the LayerNorm paper); graph
               "predict" (one step per run: the network of a generation step)
  cnn          ConvPool-CNN-C at full width (96/192), 32×32×3; norm rms_norm
  ln_gru       an LN-GRU (models/rnn) of RNNSearch's sizes: hidden 1024,
               input 512; norm layer_norm

Weights are N(0, 1/√fan_in) matrices, small biases and gains 1 ± 0.1: the
latency does not depend on the values (no sparsity, no subnormals).

usage: make_seed_models.py OUT_DIR NORMRT_CONVERT
"""
import json
import os
import subprocess
import sys

import numpy as np
import torch
from safetensors.torch import save_file


def main():
    out, convert = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(19)

    def matrix(rows, cols):
        return torch.from_numpy((rng.standard_normal((rows, cols)) / np.sqrt(cols)).astype(np.float32))

    def vector(n, center=0.0, spread=0.1):
        return torch.from_numpy((center + rng.uniform(-spread, spread, n)).astype(np.float32))

    def write(name, config, sd, suffix=".safetensors"):
        weights = os.path.join(out, name + suffix)
        save_file({k: v.contiguous() for k, v in sd.items()}, weights)
        config_path = os.path.join(out, name + ".json")
        with open(config_path, "w") as f:
            json.dump(config, f, indent=1)
        subprocess.run([convert, "--config", config_path, "--weights", weights,
                        "--output", os.path.join(out, name + ".nrmt")], check=True)

    # The attentive reader (PyTorch-port names, docs/attentive_reader.md).
    V, E, H, A, N, Q = 10000, 400, 240, 600, 409, 16
    sd = {"embedding.weight": matrix(V, E)}
    for unit in ("doc_forward", "doc_backward", "query_forward", "query_backward"):
        sd[unit + ".weight_ih"], sd[unit + ".weight_hh"] = matrix(4 * H, E), matrix(4 * H, H)
        sd[unit + ".bias"], sd[unit + ".h0"] = vector(4 * H), vector(H)
        for module, n in (("norm_x", 4 * H), ("norm_h", 4 * H), ("norm_c", H)):
            sd[f"{unit}.{module}.scale"] = vector(n, 1.0)
    sd.update({"attention.bilinear.weight": matrix(2 * H, 2 * H),
               "attention.document.weight": matrix(H, 2 * H), "attention.document.bias": vector(H),
               "attention.query.weight": matrix(H, 2 * H), "attention.v": vector(H, 0.0, 0.5),
               "output.mean_document.weight": matrix(A, 2 * H),
               "output.query.weight": matrix(A, 2 * H), "output.query.bias": vector(A),
               "output.context.weight": matrix(A, 2 * H),
               "logit.weight": matrix(N, A), "logit.bias": vector(N)})
    write("reader", {"architecture": "attentive_reader", "norm": "rms_norm", "vocab_size": V,
                     "word_size": E, "hidden_size": H, "answer_size": A, "num_answers": N,
                     "question_length": Q, "max_document_length": 512}, sd)

    # Order embeddings (PyTorch-port names, docs/order_embeddings.md).
    V, E, D, F = 10000, 300, 1024, 4096
    sd = {"embedding.weight": matrix(V, E),
          "encoder.input_gates.weight": matrix(2 * D, E), "encoder.input_gates.bias": vector(2 * D),
          "encoder.input_candidate.weight": matrix(D, E), "encoder.input_candidate.bias": vector(D),
          "encoder.hidden_gates.weight": matrix(2 * D, D),
          "encoder.hidden_candidate.weight": matrix(D, D),
          "image.weight": matrix(D, F), "image.bias": vector(D)}
    for module, n in (("norm_input_gates", 2 * D), ("norm_input_candidate", D),
                      ("norm_hidden_gates", 2 * D), ("norm_hidden_candidate", D)):
        sd[f"encoder.{module}.scale"] = vector(n, 1.0)
    write("order", {"architecture": "order_embeddings", "norm": "rms_norm", "vocab_size": V,
                    "word_size": E, "dim": D, "image_size": F, "max_sentence_length": 64}, sd)

    # Graves' handwriting network with LN-LSTMs (docs/handwriting.md).
    H, L, M = 400, 3, 20
    sd = {}
    for l in range(L):
        width = 3 if l == 0 else 3 + H
        p = f"layers.{l}."
        sd[p + "w_x.weight"], sd[p + "w_h.weight"] = matrix(4 * H, width), matrix(4 * H, H)
        sd[p + "bias"] = vector(4 * H)
        for module, n in (("norm_x", 4 * H), ("norm_h", 4 * H), ("norm_c", H)):
            sd[p + module + ".weight"], sd[p + module + ".bias"] = vector(n, 1.0), vector(n)
    sd["head.weight"], sd["head.bias"] = matrix(1 + 6 * M, L * H), vector(1 + 6 * M)
    write("handwriting", {"architecture": "handwriting", "norm": "layer_norm", "hidden_size": H,
                          "num_layers": L, "components": M, "graph": "predict",
                          "max_sequence_length": 1024}, sd)

    # ConvPool-CNN-C (docs/cnn.md), full width.
    layers = [(3, 96, 3)] + [(96, 96, 3)] * 2 + [(96, 192, 3)] + [(192, 192, 3)] * 3 + \
             [(192, 192, 1)] * 2
    sd = {}
    for i, (c_in, c_out, k) in enumerate(layers):
        sd[f"conv.{i}.weight"] = torch.from_numpy(
            (rng.standard_normal((c_out, c_in, k, k)) / np.sqrt(c_in * k * k)).astype(np.float32))
        sd[f"norm.{i}.weight"], sd[f"norm.{i}.bias"] = vector(c_out, 1.0), vector(c_out)
    sd["dense.weight"] = matrix(10, 192)
    sd["dense_norm.weight"], sd["dense_norm.bias"] = vector(10, 1.0), vector(10)
    write("cnn", {"architecture": "convpool_cnn_c", "norm": "rms_norm"}, sd)

    # An LN-GRU of RNNSearch's sizes (docs/models_rnn.md).
    H, Din = 1024, 512
    sd = {"layers.0.w_x.weight": matrix(2 * H, Din), "layers.0.w_h.weight": matrix(2 * H, H),
          "layers.0.w.weight": matrix(H, Din), "layers.0.u.weight": matrix(H, H)}
    for module, n in (("norm_h", 2 * H), ("norm_x", 2 * H), ("norm_w", H), ("norm_u", H)):
        sd[f"layers.0.{module}.weight"], sd[f"layers.0.{module}.bias"] = vector(n, 1.0), vector(n)
    write("ln_gru", {"architecture": "gru", "norm": "layer_norm", "input_size": Din,
                     "hidden_size": H, "max_sequence_length": 256}, sd)


if __name__ == "__main__":
    main()
