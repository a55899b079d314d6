#!/usr/bin/env python3
"""Fixtures of test_models_reader: tiny random bidirectional attentive readers
(Hermann et al. 2015 as Cooijmans et al.'s codes/att_reader/model.py builds
it with use_bidir, use_dq_sims, use_desc_skip_c_g and learn_h0) with the
RMSNorm authors' rlnlstm unit (bzhangGo/rmsnorm layers.py, rlnlstm_layer),
its LayerNorm twin lnlstm, normrt's pRMSNorm variant and the plain
lstm_layer, and their outputs computed here in PyTorch float64 from the
equations (docs/attentive_reader.md).

Each model is written twice with the same values: as the Theano code's .npz
(numpy.savez of the parameters plus a history_errs array, x·W matrices) and
as the PyTorch port's state_dict in safetensors ([out, in] matrices). Run
from anywhere with /work/venv/bin/python; writes fixtures/ beside this file.
"""
import json
import os

import numpy as np
import torch
from safetensors.torch import save_file

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fixtures")
EPS = 1e-5  # layers.py: rln and ln, inside the root
P = 0.25    # pRMSNorm's fraction
V, E, H, A, N, Q, S = 23, 6, 5, 7, 4, 4, 9
UNITS_THEANO = ["encoder_desc_word", "encoder_desc_word_r", "encoder_q", "encoder_q_r"]
UNITS_TORCH = ["doc_forward", "doc_backward", "query_forward", "query_backward"]
# The code's gate blocks are i, f, o, g; normrt's pRMSNorm takes its statistic
# over the first floor(p·n) values of the row in LstmCell's order f, i, o, g.
OP_ORDER = [1, 0, 2, 3]


def norm(x, kind, gain, bias, gate_row=False):
    """One row (float64): rln / ln of layers.py, or pRMSNorm."""
    if kind == "none":
        return x
    if kind == "layer_norm":
        mu = x.mean()
        y = (x - mu) / torch.sqrt(((x - mu) ** 2).mean() + EPS)
    else:
        stat = x
        if kind == "prms_norm":
            if gate_row:  # the statistic in LstmCell's gate order
                stat = torch.cat([x[i * H:(i + 1) * H] for i in OP_ORDER])
            stat = stat[: int(x.numel() * P)]
        y = x / torch.sqrt((stat * stat).mean() + EPS)
    y = y * gain
    return y + bias if kind == "layer_norm" else y


def unit(p, kind, xs, reverse):
    """rlnlstm_layer (and lnlstm / lstm) over the rows of xs; returns h per row."""
    rows = range(xs.shape[0] - 1, -1, -1) if reverse else range(xs.shape[0])
    h, c = p["h0"].clone(), torch.zeros(H, dtype=torch.float64)
    out = [None] * xs.shape[0]
    for t in rows:
        below = xs[t] @ p["W"] + p["b"]
        before = h @ p["U"]
        if kind == "none":
            pre = before + below + p["b"]
        else:
            pre = (norm(below, kind, p["s1"], p.get("b1"), True) +
                   norm(before, kind, p["s2"], p.get("b2"), True) + p["b"])
        i, f, o, g = (pre[k * H:(k + 1) * H] for k in range(4))
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        cn = c if kind == "none" else norm(c, kind, p["s3"], p.get("b3"))
        h = torch.sigmoid(o) * torch.tanh(cn)
        out[t] = h
    return torch.stack(out)


def reader(params, kind, doc, question):
    d64 = {k: torch.tensor(v, dtype=torch.float64) for k, v in params.items()}
    emb = d64["Wemb_word"]
    units = [{k[len(u) + 1:]: v for k, v in d64.items()
              if k.startswith(u + "_") and not k[len(u) + 1:].startswith(("r_", "word"))}
             for u in UNITS_THEANO]
    d, q = emb[doc], emb[question]
    desc = torch.cat([unit(units[0], kind, d, False), unit(units[1], kind, d, True)], 1)
    qf, qb = unit(units[2], kind, q, False), unit(units[3], kind, q, True)
    qrep = torch.cat([qf[-1], qb[0]])
    projd = desc @ d64["ff_att_ctx_W"] + d64["ff_att_ctx_b"]
    projq = qrep @ d64["ff_att_q_W"]
    sims = (desc @ d64["ff_att_bi_dq"]) @ (qrep @ d64["ff_att_bi_dq"])
    e = torch.tanh(projd + projq + sims[:, None]) @ d64["ff_att_proj"]
    alpha = torch.softmax(e, 0)
    ctx = alpha @ desc
    g = torch.tanh(ctx @ d64["ff_out_ctx_W"] + qrep @ d64["ff_out_q_W"] + d64["ff_out_q_b"] +
                   desc.mean(0) @ d64["ff_out_mean_d_W"])
    probs = torch.softmax(g @ d64["ff_logit_W"] + d64["ff_logit_b"], 0)
    return probs[None, :], alpha[None, :]


def random_params(kind, rng):
    f32 = lambda *shape, lo=-1.0, hi=1.0: rng.uniform(lo, hi, shape).astype(np.float32)
    p = {"Wemb_word": f32(V, E)}
    for u in UNITS_THEANO:
        p[u + "_W"] = f32(E, 4 * H, lo=-0.8, hi=0.8)
        p[u + "_U"] = f32(H, 4 * H, lo=-0.8, hi=0.8)
        p[u + "_b"] = f32(4 * H, lo=-0.5, hi=0.5)
        p[u + "_h0"] = f32(H, lo=-0.5, hi=0.5)
        if kind != "none":
            for s, n in (("s1", 4 * H), ("s2", 4 * H), ("s3", H)):
                p[u + "_" + s] = f32(n, lo=0.5, hi=1.5)
        if kind == "layer_norm":
            for s, n in (("b1", 4 * H), ("b2", 4 * H), ("b3", H)):
                p[u + "_" + s] = f32(n, lo=-0.3, hi=0.3)
    p["ff_att_bi_dq"] = f32(2 * H, 2 * H, lo=-0.5, hi=0.5)
    p["ff_att_proj"] = f32(H)
    p["ff_att_ctx_W"], p["ff_att_ctx_b"] = f32(2 * H, H), f32(H, lo=-0.3, hi=0.3)
    p["ff_att_q_W"] = f32(2 * H, H)
    p["ff_out_mean_d_W"] = f32(2 * H, A)
    p["ff_out_q_W"], p["ff_out_q_b"] = f32(2 * H, A), f32(A, lo=-0.3, hi=0.3)
    p["ff_out_ctx_W"] = f32(2 * H, A)
    p["ff_logit_W"], p["ff_logit_b"] = f32(A, N, lo=-2, hi=2), f32(N, lo=-0.3, hi=0.3)
    return p


def torch_state_dict(p, kind):
    t = lambda a: torch.from_numpy(np.ascontiguousarray(a))
    gain, bias = ("weight", "bias") if kind == "layer_norm" else ("scale", "offset")
    sd = {"embedding.weight": t(p["Wemb_word"])}
    for u, m in zip(UNITS_THEANO, UNITS_TORCH):
        sd[m + ".weight_ih"] = t(p[u + "_W"].T)
        sd[m + ".weight_hh"] = t(p[u + "_U"].T)
        sd[m + ".bias"] = t(p[u + "_b"])
        sd[m + ".h0"] = t(p[u + "_h0"])
        if kind != "none":
            for s, mod in (("1", "norm_x"), ("2", "norm_h"), ("3", "norm_c")):
                sd[f"{m}.{mod}.{gain}"] = t(p[u + "_s" + s])
                if kind == "layer_norm":
                    sd[f"{m}.{mod}.{bias}"] = t(p[u + "_b" + s])
    sd["attention.bilinear.weight"] = t(p["ff_att_bi_dq"].T)
    sd["attention.document.weight"] = t(p["ff_att_ctx_W"].T)
    sd["attention.document.bias"] = t(p["ff_att_ctx_b"])
    sd["attention.query.weight"] = t(p["ff_att_q_W"].T)
    sd["attention.v"] = t(p["ff_att_proj"])
    sd["output.mean_document.weight"] = t(p["ff_out_mean_d_W"].T)
    sd["output.query.weight"] = t(p["ff_out_q_W"].T)
    sd["output.query.bias"] = t(p["ff_out_q_b"])
    sd["output.context.weight"] = t(p["ff_out_ctx_W"].T)
    sd["logit.weight"] = t(p["ff_logit_W"].T)
    sd["logit.bias"] = t(p["ff_logit_b"])
    return sd


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(21)
    doc = rng.integers(0, V, S).astype(np.int32)
    question = rng.integers(0, V, Q).astype(np.int32)
    for kind in ("rms_norm", "layer_norm", "prms_norm", "none"):
        name = "reader_" + kind
        p = random_params(kind, rng)
        probs, alpha = reader(p, kind, torch.from_numpy(doc).long(),
                              torch.from_numpy(question).long())
        np.savez(os.path.join(OUT, name + ".npz"), history_errs=np.zeros((0, 2)), **p)
        save_file(torch_state_dict(p, kind), os.path.join(OUT, name + ".safetensors"))
        config = {"architecture": "attentive_reader", "norm": kind, "vocab_size": V,
                  "word_size": E, "hidden_size": H, "answer_size": A, "num_answers": N,
                  "question_length": Q, "max_document_length": 16}
        if kind == "prms_norm":
            config["p"] = P
        with open(os.path.join(OUT, name + ".json"), "w") as f:
            json.dump(config, f, indent=1)
        save_file({"document": torch.from_numpy(doc), "question": torch.from_numpy(question),
                   "probs": probs.contiguous(), "alignment": alpha.contiguous()},
                  os.path.join(OUT, name + ".io.safetensors"))
        print(name, "probs", probs.numpy().round(4), "alignment max", float(alpha.max()))


if __name__ == "__main__":
    main()
