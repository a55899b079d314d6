#!/usr/bin/env python3
"""Writes the fixtures of test_models_rnn: for each case a tiny random-weight
model built from PyTorch's own modules where they exist (nn.LSTMCell,
nn.GRUCell, nn.Linear, nn.LayerNorm, nn.Embedding, nn.ReLU) and, where
PyTorch has none (LN-LSTM, DRAW, LN-GRU, RMSNorm, pRMSNorm), small modules
written exactly per the equations (docs/models_rnn.md), exported by
tools/export_torch.py, plus its inputs and PyTorch's outputs:

  fixtures/<case>.safetensors     the state_dict (export_torch.export)
  fixtures/<case>.json            the config (docs/models_rnn.md keys)
  fixtures/<case>.io.safetensors  "x" or "ids"; PyTorch's float32 outputs
                                  "h_seq" (and "logits"); the same with every
                                  matrix rounded to bfloat16 ("h_seq.bf16", ...)

Run with Debian's python3-torch:  /usr/bin/python3 tests/models/rnn/make_fixtures.py
The C++ tests read the committed files; they never run Python.
"""
import copy
import os
import sys

import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "tools"))
import export_torch  # noqa: E402

STEPS, D, H, V, O = 7, 5, 7, 11, 3
EPS = {"layer_norm": 1e-5, "rms_norm": 1e-8, "prms_norm": 1e-8}
P = 0.4  # ⌊0.4·4H⌋ = 11, ⌊0.4·2H⌋ = 5, ⌊0.4·H⌋ = 2: statistics end inside a gate block


class RMSNorm(nn.Module):
    """As the RMSNorm authors' rmsnorm_torch.py: eps added to the RMS,
    pRMSNorm's statistic over the first int(d * p) elements."""

    def __init__(self, d, p=-1.0, eps=1e-8, bias=True):
        super().__init__()
        self.d, self.p, self.eps, self.bias = d, p, eps, bias
        self.scale = nn.Parameter(torch.ones(d))
        if bias:
            self.offset = nn.Parameter(torch.zeros(d))

    def forward(self, x):
        if self.p < 0.0 or self.p > 1.0:
            norm_x, d_x = x.norm(2, dim=-1, keepdim=True), self.d
        else:
            partial_size = int(self.d * self.p)
            partial_x, _ = torch.split(x, [partial_size, self.d - partial_size], dim=-1)
            norm_x, d_x = partial_x.norm(2, dim=-1, keepdim=True), partial_size
        rms_x = norm_x * d_x ** (-1.0 / 2)
        x_normed = x / (rms_x + self.eps)
        return self.scale * x_normed + self.offset if self.bias else self.scale * x_normed


def make_norm(kind, n):
    if kind == "layer_norm":
        return nn.LayerNorm(n, eps=EPS[kind])
    return RMSNorm(n, p=P if kind == "prms_norm" else -1.0, eps=EPS[kind])


class LnLstmCell(nn.Module):
    """LayerNorm paper eqs. 20-22 (placement projections_and_cell) or DRAW
    (cell_only); gate blocks f, i, o, g as in eq. 20."""

    def __init__(self, d, h, kind, placement):
        super().__init__()
        self.w_x = nn.Linear(d, 4 * h, bias=False)
        self.w_h = nn.Linear(h, 4 * h, bias=False)
        self.bias = nn.Parameter(torch.zeros(4 * h))
        self.projections = placement == "projections_and_cell"
        if self.projections:
            self.norm_h = make_norm(kind, 4 * h)
            self.norm_x = make_norm(kind, 4 * h)
        self.norm_c = make_norm(kind, h)

    def forward(self, x, state):
        h, c = state
        a, b = self.w_h(h), self.w_x(x)
        if self.projections:
            a, b = self.norm_h(a), self.norm_x(b)
        f, i, o, g = (a + b + self.bias).chunk(4, dim=-1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h = torch.sigmoid(o) * torch.tanh(self.norm_c(c))
        return h, c


class LnGruCell(nn.Module):
    """LayerNorm paper eqs. 26-28; gate blocks z, r as in eq. 26."""

    def __init__(self, d, h, kind):
        super().__init__()
        self.w_x = nn.Linear(d, 2 * h, bias=False)
        self.w_h = nn.Linear(h, 2 * h, bias=False)
        self.w = nn.Linear(d, h, bias=False)
        self.u = nn.Linear(h, h, bias=False)
        self.norm_h, self.norm_x = make_norm(kind, 2 * h), make_norm(kind, 2 * h)
        self.norm_w, self.norm_u = make_norm(kind, h), make_norm(kind, h)

    def forward(self, x, h):
        z, r = (self.norm_h(self.w_h(h)) + self.norm_x(self.w_x(x))).chunk(2, dim=-1)
        candidate = torch.tanh(self.norm_w(self.w(x)) + torch.sigmoid(r) * self.norm_u(self.u(h)))
        return (1 - torch.sigmoid(z)) * h + torch.sigmoid(z) * candidate


class RnnModel(nn.Module):
    """Optional embedding → stacked cells → optional Linear head."""

    def __init__(self, config):
        super().__init__()
        self.lstm = config["architecture"] == "lstm"
        kind, layers = config["norm"], config["num_layers"]
        if config["vocab_size"]:
            self.embedding = nn.Embedding(config["vocab_size"], D)
        cells = []
        for layer in range(layers):
            d = D if layer == 0 else H
            if kind == "none":
                cells.append(nn.LSTMCell(d, H) if self.lstm else nn.GRUCell(d, H))
            elif self.lstm:
                cells.append(LnLstmCell(d, H, kind, config["placement"]))
            else:
                cells.append(LnGruCell(d, H, kind))
        self.layers = nn.ModuleList(cells)
        if config["output_size"]:
            self.head = nn.Linear(H, config["output_size"])

    def forward(self, inputs):
        x = self.embedding(inputs) if hasattr(self, "embedding") else inputs
        for cell in self.layers:
            h, c, rows = torch.zeros(1, H), torch.zeros(1, H), []
            for t in range(x.shape[0]):
                if self.lstm:
                    h, c = cell(x[t : t + 1], (h, c))
                else:
                    h = cell(x[t : t + 1], h)
                rows.append(h)
            x = torch.cat(rows)
        outputs = {"h_seq": x}
        if hasattr(self, "head"):
            outputs["logits"] = self.head(x)
        return outputs


class MlpBlock(nn.Module):
    def __init__(self, d, n, kind):
        super().__init__()
        self.linear = nn.Linear(d, n)
        if kind != "none":
            self.norm = make_norm(kind, n)
        self.relu = nn.ReLU()

    def forward(self, x):
        x = self.linear(x)
        return self.relu(self.norm(x) if hasattr(self, "norm") else x)


class Mlp(nn.Module):
    def __init__(self, config):
        super().__init__()
        sizes = [config["input_size"]] + config["hidden_sizes"]
        self.hidden = nn.ModuleList(
            MlpBlock(sizes[i], sizes[i + 1], config["norm"]) for i in range(len(sizes) - 1))
        self.out = nn.Linear(sizes[-1], config["output_size"])

    def forward(self, x):
        for block in self.hidden:
            x = block(x)
        return {"logits": self.out(x)}


def randomize(model, generator):
    """Weights and biases ~ U(−0.6, 0.6); gains (nn.LayerNorm's weight,
    RMSNorm's scale) ~ U(0.5, 1.5), so every tensor matters and a misplaced
    one shows."""
    gains = set()
    for module in model.modules():
        if isinstance(module, nn.LayerNorm):
            gains.add(id(module.weight))
        elif isinstance(module, RMSNorm):
            gains.add(id(module.scale))
    for param in model.parameters():
        values = torch.rand(param.shape, generator=generator, dtype=torch.float64)
        param.data = (0.5 + values if id(param) in gains else (values - 0.5) * 1.2).float()


def bf16_matrices(model):
    """A copy with every matrix rounded to bfloat16 (ties to even), as the
    builders store them for matrix dtype bf16; vectors stay float32."""
    rounded = copy.deepcopy(model)
    for param in rounded.parameters():
        if param.dim() >= 2:
            param.data = param.data.to(torch.bfloat16).to(torch.float32)
    return rounded


def rnn_config(arch, norm, placement="projections_and_cell", layers=2, vocab=0, output=0):
    config = {"architecture": arch, "input_size": D, "hidden_size": H, "num_layers": layers,
              "norm": norm, "vocab_size": vocab, "output_size": output,
              "max_sequence_length": 16}
    if norm != "none":
        config["eps"] = EPS[norm]
        config["eps_placement"] = "inside_sqrt" if norm == "layer_norm" else "added_to_rms"
        config["gain_convention"] = "as_stored"
        if arch == "lstm":
            config["placement"] = placement
    if norm == "prms_norm":
        config["p"] = P
    return config


def mlp_config(norm):
    config = rnn_config("mlp", norm)
    for key in ("hidden_size", "num_layers", "vocab_size", "placement"):
        config.pop(key, None)
    config.update({"hidden_sizes": [9, 7], "output_size": 4})
    return config


CASES = {
    "lstm_layer_norm": rnn_config("lstm", "layer_norm"),
    "lstm_rms_norm": rnn_config("lstm", "rms_norm", vocab=V, output=O),
    "lstm_prms_norm": rnn_config("lstm", "prms_norm"),
    "lstm_draw_layer_norm": rnn_config("lstm", "layer_norm", "cell_only", layers=1, output=O),
    "lstm_draw_rms_norm": rnn_config("lstm", "rms_norm", "cell_only"),
    "lstm_draw_prms_norm": rnn_config("lstm", "prms_norm", "cell_only"),
    "lstm_plain": rnn_config("lstm", "none", output=O),
    "gru_layer_norm": rnn_config("gru", "layer_norm", output=O),
    "gru_rms_norm": rnn_config("gru", "rms_norm"),
    "gru_prms_norm": rnn_config("gru", "prms_norm", layers=1, vocab=V),
    "gru_plain": rnn_config("gru", "none", vocab=V, output=O),
    "mlp_layer_norm": mlp_config("layer_norm"),
    "mlp_rms_norm": mlp_config("rms_norm"),
    "mlp_prms_norm": mlp_config("prms_norm"),
    "mlp_none": mlp_config("none"),
}


def main():
    out_dir = os.path.join(HERE, "fixtures")
    os.makedirs(out_dir, exist_ok=True)
    for index, (name, config) in enumerate(CASES.items()):
        generator = torch.Generator().manual_seed(1000 + index)
        model = Mlp(config) if config["architecture"] == "mlp" else RnnModel(config)
        randomize(model, generator)
        if config.get("vocab_size"):
            inputs = {"ids": torch.randint(0, V, (STEPS,), generator=generator, dtype=torch.int32)}
            model_input = inputs["ids"].long()
        else:
            inputs = {"x": (torch.rand(STEPS, D, generator=generator, dtype=torch.float64) * 4 - 2)
                      .float()}
            model_input = inputs["x"]
        io = dict(inputs)
        with torch.no_grad():
            for key, value in model(model_input).items():
                io[key] = value
            for key, value in bf16_matrices(model)(model_input).items():
                io[key + ".bf16"] = value
        prefix = os.path.join(out_dir, name)
        export_torch.export(model, config, prefix)
        export_torch.save_safetensors(prefix + ".io.safetensors", io)
        print(name, {k: list(v.shape) for k, v in io.items()})


if __name__ == "__main__":
    main()
