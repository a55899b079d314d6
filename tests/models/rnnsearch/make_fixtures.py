#!/usr/bin/env python3
"""Writes the fixtures of test_rnnsearch (docs/rnnsearch.md).

Each fixture is a tiny random-weight RNNSearch as the Theano version of
Nematus defines it (nematus/nmt.py: init_params, build_encoder,
build_decoder, gen_sample; nematus/layers.py: gru_layer, gru_cond_layer,
fflayer, layer_norm), written from those equations in PyTorch and evaluated
in float64 from the stored float32 weights:

  encoder   bidirectional GRU over the source embeddings; annotations
            [S, 2·dim] = forward ‖ backward; s0 = tanh(ff_state(mean))
  decoder   conditional GRU: GRU1(s, emb(y_prev)) → s1; additive attention
            e_j = tanh(pctx_j + s1·W_comb_att)·U_att + c_tt, softmax over j;
            GRU2(s1, ctx) → s2; deep output tanh(ff_logit_lstm(s2) +
            ff_logit_prev(emb) + ff_logit_ctx(ctx)) → ff_logit; the first
            step's y_prev is -1, a zero embedding.

The norm of every *_lns/_lnb (and *_ln_s/_ln_b) site: none
(layer_normalisation false), LayerNorm (nn.functional.layer_norm, eps 1e-5
inside the root, as nematus' layer_norm), RMSNorm and pRMSNorm (the RMSNorm
authors' Theano variant of layer_norm: x / sqrt(mean(x²) + 1e-5) · s + b;
pRMSNorm takes the mean over the first int(n·p) elements).

Files per case <name> in fixtures/:
  <name>.npz           the parameters under Nematus' names, float32 (numpy
                       savez), plus training bookkeeping Nematus also saves
                       (history_errs, uidx, adam_* optimizer slots)
  <name>.json          the Nematus config (model.npz.json keys)
  <name>.expected.npz  per source sentence i: src_ids_i i32 [S];
                       annotations_i, attention_keys_i [S, 2·dim],
                       init_state_i [1, dim]; tgt_ids_i i32 [T] and
                       logits_i [T, V], alignment_i [T, S] (teacher forcing
                       with prev ids -1, tgt[0..T-2]); greedy_ids_i i32 [G];
                       for K in 3, 5: beamK_ids_i i32 [n, L] (padded with
                       -9), beamK_lengths_i i32 [n], beamK_costs_i f64 [n]
                       (-log p, ascending). Reference values in float64.

Also rnnsearch_broken.npz: rnnsearch_layer_norm's parameters with four
problems for the converter's error test (decoder_c_tt missing, an unknown
"decoder_U_att_extra", encoder_Wx transposed, ff_logit_b stored as int32),
besides the training entries it must skip.

Beam search as nematus' gen_sample (k > 1, not stochastic): candidates
cost + (-log softmax) over live hypotheses × vocabulary; the k - dead
cheapest survive (ties: the lower flat index live·V + word first); a
hypothesis ending in EOS (0) is finished and the beam shrinks by one;
search stops when none are live, k are finished, or after MAX_STEPS steps
(then the live ones are added as they are). Greedy: argmax until EOS or
MAX_STEPS tokens.

Run with Debian's python3-torch: /usr/bin/python3 make_fixtures.py
"""
import json
import os

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fixtures")
DIM_WORD, DIM, EPS, P = 16, 24, 1e-5, 0.25
MAX_STEPS = 12
SOURCES = [[7, 3, 22, 15, 9, 28, 4, 11, 0], [0]]
TARGETS = [[5, 12, 3, 8, 20, 0], [9, 1, 0]]

# name: (layer_normalisation, norm, n_words_src, n_words, tie_enc_dec, tie_dec)
CASES = {
    "rnnsearch_none": (False, None, 30, 31, False, False),
    "rnnsearch_layer_norm": (True, "layer_norm", 30, 31, False, False),
    "rnnsearch_rms_norm_tied": (True, "rms_norm", 31, 31, True, True),
    "rnnsearch_prms_norm": (True, "prms_norm", 30, 31, False, False),
}


def gru_names(prefix, ln):
    """(name, shape) of one Nematus gru_layer (layers.py: param_init_gru)."""
    d, w = DIM, DIM_WORD
    names = [(prefix + "_W", (w, 2 * d)), (prefix + "_b", (2 * d,)), (prefix + "_U", (d, 2 * d)),
             (prefix + "_Wx", (w, d)), (prefix + "_bx", (d,)), (prefix + "_Ux", (d, d))]
    if ln:
        for m, n in (("W", 2 * d), ("Wx", d), ("U", 2 * d), ("Ux", d)):
            names += [(f"{prefix}_{m}_lnb", (n,)), (f"{prefix}_{m}_lns", (n,))]
    return names


def parameter_shapes(ln, n_src, n_trg, tie_enc_dec, tie_dec):
    d, w, c = DIM, DIM_WORD, 2 * DIM
    names = [("Wemb", (n_src, w))]
    if not tie_enc_dec:
        names.append(("Wemb_dec", (n_trg, w)))
    names += gru_names("encoder", ln) + gru_names("encoder_r", ln)
    names += [("ff_state_W", (c, d)), ("ff_state_b", (d,))]
    names += gru_names("decoder", ln)
    names += [("decoder_U_nl", (d, 2 * d)), ("decoder_b_nl", (2 * d,)), ("decoder_Ux_nl", (d, d)),
              ("decoder_bx_nl", (d,)), ("decoder_Wc", (c, 2 * d)), ("decoder_Wcx", (c, d)),
              ("decoder_W_comb_att", (d, c)), ("decoder_Wc_att", (c, c)), ("decoder_b_att", (c,)),
              ("decoder_U_att", (c, 1)), ("decoder_c_tt", (1,))]
    if ln:
        for m, n in (("U_nl", 2 * d), ("Ux_nl", d), ("Wc", 2 * d), ("Wcx", d),
                     ("W_comb_att", c), ("Wc_att", c)):
            names += [(f"decoder_{m}_lnb", (n,)), (f"decoder_{m}_lns", (n,))]
        names += [("ff_state_ln_b", (d,)), ("ff_state_ln_s", (d,))]
    for prefix, n_in in (("ff_logit_lstm", d), ("ff_logit_prev", w), ("ff_logit_ctx", c)):
        names += [(prefix + "_W", (n_in, w)), (prefix + "_b", (w,))]
        if ln:
            names += [(prefix + "_ln_b", (w,)), (prefix + "_ln_s", (w,))]
    if not tie_dec:
        names.append(("ff_logit_W", (w, n_trg)))
    names.append(("ff_logit_b", (n_trg,)))
    return names


def random_parameters(rng, shapes):
    """Trained-looking values: matrices ~ N(0, 1/fan_in)·1.5, gains 1 ± 0.2,
    biases ± 0.2, embeddings ~ N(0, 0.7), an EOS bias so that hypotheses end."""
    params = {}
    for name, shape in shapes:
        if name.endswith(("_lns", "_ln_s")):
            v = 1.0 + 0.2 * rng.standard_normal(shape)
        elif len(shape) == 1:
            v = 0.2 * rng.standard_normal(shape)
        elif name.startswith("Wemb"):
            v = 0.7 * rng.standard_normal(shape)
        else:
            v = 1.5 * rng.standard_normal(shape) / np.sqrt(shape[0])
        params[name] = v.astype(np.float32)
    params["ff_logit_b"][0] += 0.4
    return params


class Nematus:
    """RNNSearch in float64 from Nematus' parameters."""

    def __init__(self, params, ln, norm, tie_enc_dec, tie_dec):
        self.p = {k: torch.tensor(v, dtype=torch.float64) for k, v in params.items()}
        self.norm = norm if ln else None
        self.emb_dec = self.p["Wemb" if tie_enc_dec else "Wemb_dec"]
        self.logit_w = self.emb_dec.T if tie_dec else self.p["ff_logit_W"]

    def n(self, x, gain, bias):
        """nematus' layer_norm(x, b, s) or the RMSNorm variants; identity for none."""
        if self.norm is None:
            return x
        s, b = self.p[gain], self.p[bias]
        if self.norm == "layer_norm":
            return F.layer_norm(x, (x.shape[-1],), weight=s, bias=b, eps=EPS)
        k = x.shape[-1] if self.norm == "rms_norm" else int(x.shape[-1] * P)
        ms = (x[..., :k] * x[..., :k]).mean(-1, keepdim=True)
        return x / torch.sqrt(ms + EPS) * s + b

    def ff(self, x, prefix):
        """fflayer(activ='linear'): x·W + b, then layer_norm(ln_b, ln_s)."""
        return self.n(x @ self.p[prefix + "_W"] + self.p[prefix + "_b"], prefix + "_ln_s",
                      prefix + "_ln_b")

    def gru_step(self, h, xg, xc, U, Ux, b_u=None, b_ux=None):
        """One step of gru_layer / gru_cond_layer given the normalized input
        projections xg [2d] (gates r, u) and xc [d]."""
        p, d = self.p, DIM
        pre = h @ p[U] + (p[b_u] if b_u else 0)
        pre = self.n(pre, U + "_lns", U + "_lnb") + xg
        r, u = torch.sigmoid(pre[..., :d]), torch.sigmoid(pre[..., d:])
        px = h @ p[Ux] + (p[b_ux] if b_ux else 0)
        px = self.n(px, Ux + "_lns", Ux + "_lnb") * r + xc
        return u * h + (1.0 - u) * torch.tanh(px)

    def input_projections(self, x, prefix):
        p = self.p
        xg = self.n(x @ p[prefix + "_W"] + p[prefix + "_b"], prefix + "_W_lns", prefix + "_W_lnb")
        xc = self.n(x @ p[prefix + "_Wx"] + p[prefix + "_bx"], prefix + "_Wx_lns",
                    prefix + "_Wx_lnb")
        return xg, xc

    def gru_sequence(self, x, prefix):
        xg, xc = self.input_projections(x, prefix)
        h = torch.zeros(DIM, dtype=torch.float64)
        out = []
        for t in range(x.shape[0]):
            h = self.gru_step(h, xg[t], xc[t], prefix + "_U", prefix + "_Ux")
            out.append(h)
        return torch.stack(out)

    def encode(self, src):
        emb = self.p["Wemb"][torch.tensor(src)]
        forward = self.gru_sequence(emb, "encoder")
        backward = self.gru_sequence(emb.flip(0), "encoder_r").flip(0)
        ctx = torch.cat([forward, backward], dim=1)
        init = torch.tanh(self.ff(ctx.mean(0), "ff_state"))
        keys = self.n(ctx @ self.p["decoder_Wc_att"] + self.p["decoder_b_att"],
                      "decoder_Wc_att_lns", "decoder_Wc_att_lnb")
        return ctx, keys, init

    def step(self, y_prev, s, ctx, keys):
        """One decoder step: (logits [V], s2 [d], alpha [S])."""
        p = self.p
        emb = torch.zeros(DIM_WORD, dtype=torch.float64) if y_prev < 0 else self.emb_dec[y_prev]
        xg, xc = self.input_projections(emb, "decoder")
        s1 = self.gru_step(s, xg, xc, "decoder_U", "decoder_Ux")
        pstate = self.n(s1 @ p["decoder_W_comb_att"], "decoder_W_comb_att_lns",
                        "decoder_W_comb_att_lnb")
        e = torch.tanh(keys + pstate) @ p["decoder_U_att"][:, 0] + p["decoder_c_tt"][0]
        alpha = torch.softmax(e, dim=0)
        c = alpha @ ctx
        cg = self.n(c @ p["decoder_Wc"], "decoder_Wc_lns", "decoder_Wc_lnb")
        cc = self.n(c @ p["decoder_Wcx"], "decoder_Wcx_lns", "decoder_Wcx_lnb")
        s2 = self.gru_step(s1, cg, cc, "decoder_U_nl", "decoder_Ux_nl", "decoder_b_nl",
                           "decoder_bx_nl")
        hidden = torch.tanh(self.ff(s2, "ff_logit_lstm") + self.ff(emb, "ff_logit_prev") +
                            self.ff(c, "ff_logit_ctx"))
        return hidden @ self.logit_w + p["ff_logit_b"], s2, alpha


def greedy(model, ctx, keys, s):
    ids, y = [], -1
    for _ in range(MAX_STEPS):
        logits, s, _ = model.step(y, s, ctx, keys)
        top = torch.topk(logits, 2).values
        assert top[0] - top[1] > 1e-3, "greedy near-tie"
        y = int(torch.argmax(logits))
        ids.append(y)
        if y == 0:
            break
    return ids


def beam_search(model, ctx, keys, s0, k):
    """nematus' gen_sample with k > 1: [(ids, cost)] finished first, then the live."""
    live = [([], 0.0, s0)]
    finished, margins = [], []
    for _ in range(MAX_STEPS):
        cand = []
        states = []
        for i, (ids, cost, s) in enumerate(live):
            logits, s2, _ = model.step(ids[-1] if ids else -1, s, ctx, keys)
            states.append(s2)
            logp = torch.log_softmax(logits, dim=0)
            V = logits.shape[0]
            cand += [(cost - float(logp[w]), i * V + w, i, w) for w in range(V)]
        cand.sort(key=lambda c: (c[0], c[1]))
        keep = k - len(finished)
        margins.append(cand[keep][0] - cand[keep - 1][0])
        new = []
        for cost, _, i, w in cand[:keep]:
            ids = live[i][0] + [w]
            if w == 0:
                finished.append((ids, cost))
            else:
                new.append((ids, cost, states[i]))
        live = new
        if not live or len(finished) >= k:
            break
    assert min(margins) > 1e-4, "beam selection near-tie"
    return finished + [(ids, cost) for ids, cost, _ in live]


def config_json(ln, n_src, n_trg, tie_enc_dec, tie_dec):
    """A model.npz.json as nematus' train() writes it (architecture and
    training keys alike)."""
    return {
        "dim_word": DIM_WORD, "dim": DIM, "n_words_src": n_src, "n_words": n_trg,
        "encoder": "gru", "decoder": "gru_cond", "decoder_deep": "gru",
        "enc_depth": 1, "dec_depth": 1, "enc_depth_bidirectional": 1,
        "enc_recurrence_transition_depth": 1, "dec_base_recurrence_transition_depth": 2,
        "dec_high_recurrence_transition_depth": 1, "dec_deep_context": False,
        "factors": 1, "dim_per_factor": [DIM_WORD],
        "layer_normalisation": ln, "weight_normalisation": False,
        "tie_encoder_decoder_embeddings": tie_enc_dec, "tie_decoder_embeddings": tie_dec,
        "maxlen": 50, "model_version": 0.1, "use_dropout": False, "dropout_embedding": 0.2,
        "dropout_hidden": 0.2, "dropout_source": 0, "dropout_target": 0,
        "optimizer": "adam", "lrate": 0.0001, "batch_size": 80, "decay_c": 0.0,
        "clip_c": 1.0, "saveto": "model.npz", "reload_": False, "patience": 10,
        "datasets": ["train.src", "train.trg"], "dictionaries": ["src.json", "trg.json"],
        "objective": "CE", "domain_interpolation_indomain_datasets": [None, None],
    }


def write_case(name, seed):
    ln, norm, n_src, n_trg, tie_enc_dec, tie_dec = CASES[name]
    rng = np.random.RandomState(seed)
    params = random_parameters(rng, parameter_shapes(ln, n_src, n_trg, tie_enc_dec, tie_dec))
    model = Nematus(params, ln, norm, tie_enc_dec, tie_dec)
    saved = dict(params)
    saved["history_errs"] = np.array([3.5, 3.1], dtype=np.float64)
    saved["uidx"] = np.array(1200, dtype=np.int64)
    saved["adam_t_prev"] = np.array(1200.0, dtype=np.float32)
    saved["adam_decoder_c_tt_mean"] = np.zeros(1, dtype=np.float32)
    np.savez(os.path.join(OUT, name + ".npz"), **saved)
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        json.dump(config_json(ln, n_src, n_trg, tie_enc_dec, tie_dec), f, indent=2,
                  sort_keys=True)
        f.write("\n")

    expected = {}
    for i, (src, tgt) in enumerate(zip(SOURCES, TARGETS)):
        ctx, keys, s0 = model.encode(src)
        expected[f"src_ids_{i}"] = np.array(src, dtype=np.int32)
        expected[f"annotations_{i}"] = ctx.numpy()
        expected[f"attention_keys_{i}"] = keys.numpy()
        expected[f"init_state_{i}"] = s0.numpy()[None, :]
        logits, alignment, s, y = [], [], s0, -1
        for t in tgt:
            step_logits, s, alpha = model.step(y, s, ctx, keys)
            logits.append(step_logits)
            alignment.append(alpha)
            y = t
        expected[f"tgt_ids_{i}"] = np.array(tgt, dtype=np.int32)
        expected[f"logits_{i}"] = torch.stack(logits).numpy()
        expected[f"alignment_{i}"] = torch.stack(alignment).numpy()
        expected[f"greedy_ids_{i}"] = np.array(greedy(model, ctx, keys, s0), dtype=np.int32)
        for k in (3, 5):
            hyps = sorted(beam_search(model, ctx, keys, s0, k), key=lambda h: h[1])
            width = max(len(ids) for ids, _ in hyps)
            ids = np.full((len(hyps), width), -9, dtype=np.int32)
            for row, (h, _) in enumerate(hyps):
                ids[row, :len(h)] = h
            expected[f"beam{k}_ids_{i}"] = ids
            expected[f"beam{k}_lengths_{i}"] = np.array([len(h) for h, _ in hyps], dtype=np.int32)
            expected[f"beam{k}_costs_{i}"] = np.array([c for _, c in hyps], dtype=np.float64)
            print(f"{name} src {i} beam {k}:",
                  [(h, round(c, 3)) for h, c in hyps])
        print(f"{name} src {i} greedy:", expected[f"greedy_ids_{i}"].tolist())
    np.savez(os.path.join(OUT, name + ".expected.npz"), **expected)


def write_broken():
    ok = dict(np.load(os.path.join(OUT, "rnnsearch_layer_norm.npz")))
    del ok["decoder_c_tt"]
    ok["decoder_U_att_extra"] = np.zeros(3, dtype=np.float32)
    ok["encoder_Wx"] = np.ascontiguousarray(ok["encoder_Wx"].T)
    ok["ff_logit_b"] = np.arange(ok["ff_logit_b"].shape[0], dtype=np.int32)
    np.savez(os.path.join(OUT, "rnnsearch_broken.npz"), **ok)


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(0)
    for seed, name in enumerate(CASES):
        write_case(name, 100 + seed)
    write_broken()


if __name__ == "__main__":
    main()
