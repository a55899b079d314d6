"""The RNN cells of the benchmark as PyTorch modules, one layer each, with the
state_dict names of docs/models_rnn.md (prefix "layers.0."): the LN-LSTM and
LN-GRU of the LayerNorm paper (eqs. 20-22, 26-28) with LayerNorm, RMSNorm or
pRMSNorm (Zhang & Sennrich's rmsnorm_torch.py: eps added to the RMS, the
partial statistic over the first int(n·p) elements), and PyTorch's own
nn.LSTMCell / nn.GRUCell for the plain cells. Same equations as
tests/models/rnn/make_fixtures.py, sized by the caller."""
import torch
from torch import nn

EPS = {"layer_norm": 1e-5, "rms_norm": 1e-8, "prms_norm": 1e-8}


class RMSNorm(nn.Module):
    """x / (rms(x[:k]) + eps) · scale + offset, k = int(n·p) (p = 1: RMSNorm)."""

    def __init__(self, n, p, eps):
        super().__init__()
        self.k, self.eps = int(n * p), eps
        self.scale = nn.Parameter(torch.ones(n))
        self.offset = nn.Parameter(torch.zeros(n))

    def forward(self, x):
        part = x if self.k == x.shape[-1] else x[..., : self.k]
        rms = part.norm(2, dim=-1, keepdim=True) * self.k ** -0.5
        return x / (rms + self.eps) * self.scale + self.offset


def make_norm(kind, n, p):
    if kind == "layer_norm":
        return nn.LayerNorm(n, eps=EPS[kind])
    return RMSNorm(n, p if kind == "prms_norm" else 1.0, EPS[kind])


class LnLstmCell(nn.Module):
    """[f i o g] = norm_h(w_h h) + norm_x(w_x x) + bias;
    c = σ(f)c + σ(i)tanh(g); h = σ(o)tanh(norm_c(c)). x [1, D], h, c [1, H]."""

    def __init__(self, d, h, kind, p):
        super().__init__()
        self.w_x = nn.Linear(d, 4 * h, bias=False)
        self.w_h = nn.Linear(h, 4 * h, bias=False)
        self.bias = nn.Parameter(torch.zeros(4 * h))
        self.norm_h, self.norm_x = make_norm(kind, 4 * h, p), make_norm(kind, 4 * h, p)
        self.norm_c = make_norm(kind, h, p)

    def forward(self, x, state):
        h, c = state
        f, i, o, g = (self.norm_h(self.w_h(h)) + self.norm_x(self.w_x(x)) + self.bias).chunk(4, -1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        return torch.sigmoid(o) * torch.tanh(self.norm_c(c)), c


class LnGruCell(nn.Module):
    """[z r] = norm_h(w_h h) + norm_x(w_x x);
    ĥ = tanh(norm_w(w x) + σ(r) norm_u(u h)); h = (1 − σ(z))h + σ(z)ĥ."""

    def __init__(self, d, h, kind, p):
        super().__init__()
        self.w_x = nn.Linear(d, 2 * h, bias=False)
        self.w_h = nn.Linear(h, 2 * h, bias=False)
        self.w = nn.Linear(d, h, bias=False)
        self.u = nn.Linear(h, h, bias=False)
        self.norm_h, self.norm_x = make_norm(kind, 2 * h, p), make_norm(kind, 2 * h, p)
        self.norm_w, self.norm_u = make_norm(kind, h, p), make_norm(kind, h, p)

    def forward(self, x, h):
        z, r = (self.norm_h(self.w_h(h)) + self.norm_x(self.w_x(x))).chunk(2, -1)
        candidate = torch.tanh(self.norm_w(self.w(x)) + torch.sigmoid(r) * self.norm_u(self.u(h)))
        z = torch.sigmoid(z)
        return (1 - z) * h + z * candidate


class OneLayer(nn.Module):
    """Holds the cell as layers[0] so the state_dict names match the builder's."""

    def __init__(self, cell):
        super().__init__()
        self.layers = nn.ModuleList([cell])


def make_cell(arch, kind, d, h, p):
    if kind == "none":
        return nn.LSTMCell(d, h) if arch == "lstm" else nn.GRUCell(d, h)
    return LnLstmCell(d, h, kind, p) if arch == "lstm" else LnGruCell(d, h, kind, p)


def randomize(module, generator):
    """Realistic magnitudes: matrices N(0, 1/fan_in) (unit-variance
    pre-activations for unit inputs), norm gains 1 + N(0, 0.1²), biases and
    norm offsets N(0, 0.1²)."""
    gains = {id(m.weight) for m in module.modules() if isinstance(m, nn.LayerNorm)}
    gains |= {id(m.scale) for m in module.modules() if isinstance(m, RMSNorm)}
    with torch.no_grad():
        for param in module.parameters():
            noise = torch.randn(param.shape, generator=generator)
            if param.dim() == 2:
                param.copy_(noise / param.shape[1] ** 0.5)
            elif id(param) in gains:
                param.copy_(1 + 0.1 * noise)
            else:
                param.copy_(0.1 * noise)


def rnn_config(arch, kind, d, h, p, max_steps):
    """The normrt config (docs/models_rnn.md keys) of one such layer."""
    config = {"architecture": arch, "input_size": d, "hidden_size": h, "num_layers": 1,
              "norm": kind, "vocab_size": 0, "output_size": 0,
              "max_sequence_length": max_steps}
    if kind != "none":
        config.update(eps=EPS[kind], gain_convention="as_stored",
                      eps_placement="inside_sqrt" if kind == "layer_norm" else "added_to_rms")
        if arch == "lstm":
            config["placement"] = "projections_and_cell"
    if kind == "prms_norm":
        config["p"] = p
    return config
