"""One decoder token of PyTorch's nn.Transformer encoder-decoder (the
Transformer-base shape: E = 512, 6 + 6 post-norm layers, 8 heads, FF 2048,
vocab 32000), source of 32 tokens, the timed token at target position 32.

PyTorch has three honest ways to produce that token; each is a row:
  cached   — encoder memory and cross-attention K/V computed once, decoder
             self-attention K/V cache (seq2seq_models.IncrementalDecoder,
             checked against nn.Transformer.forward);
  encoder  — the same, but the encoder and the cross K/V recomputed for
             every token: the work normrt's graph does, since it recomputes
             the encoder on every run (docs/torch_transformer.md);
  forward  — nn.Transformer.forward over the whole 33-token prefix (no
             cache: what the module itself offers), last row.
normrt side: normrt-convert has no torch_transformer config yet
(tools/convert/model_config.cc), so the conversion below is attempted with
the builder's field names (TorchTransformerConfig + build options) and, when
refused, the rows carry PyTorch's figures and the converter's message."""
import json

import numpy as np
import torch

from export_torch import save_safetensors
from torch_bench import converter
from torch_bench.context import Row, agreement, as_bf16
from torch_bench.seq2seq_models import IncrementalDecoder, Seq2Seq

VOCAB, E, NHEAD, LAYERS, FF, MAX_POS = 32000, 512, 8, 6, 2048, 128
SOURCE, POSITION, MAX_TARGET = 32, 32, 64


def randomize(model, generator):
    with torch.no_grad():  # as tests/models/seq2seq/make_fixtures.py
        for name, p in model.named_parameters():
            noise = torch.randn(p.shape, generator=generator)
            if "norm" in name and name.endswith("weight"):
                p.copy_(1 + 0.2 * noise)
            elif name.endswith("bias"):
                p.copy_(0.1 * noise)
            elif "embedding" in name:
                p.copy_(noise)
            else:
                p.copy_(noise / p.shape[-1] ** 0.5)


def normrt_config():
    return {"architecture": "torch_transformer", "src_vocab_size": VOCAB,
            "tgt_vocab_size": VOCAB, "d_model": E, "nhead": NHEAD,
            "num_encoder_layers": LAYERS, "num_decoder_layers": LAYERS,
            "dim_feedforward": FF, "activation": "relu", "norm_first": False,
            "encoder_final_norm": True, "decoder_final_norm": True,
            "max_positions": MAX_POS, "norm": "layer_norm", "eps": 1e-5,
            "source_length": SOURCE, "max_target_length": MAX_TARGET, "kv_cache": True}


def torch_variants(model, src, prefix, token):
    """{variant: (call, prepare)}; each call returns the token's logits [1, V]."""
    cached = IncrementalDecoder(model, MAX_TARGET)
    cached.set_memory(model.encode(src))
    cached.step(prefix)
    fresh = IncrementalDecoder(model, MAX_TARGET)  # its own cache, recomputed memory
    fresh.set_memory(model.encode(src))
    fresh.step(prefix)
    whole = torch.cat([prefix, token], dim=1)

    def rewind(decoder):
        return lambda: setattr(decoder, "position", POSITION)

    def with_encoder():
        fresh.set_memory(model.encode(src))
        return fresh.step(token)

    return {
        "cached": (lambda: cached.step(token), rewind(cached)),
        "encoder": (with_encoder, rewind(fresh)),
        "forward": (lambda: model(src, whole)[0, -1:], None),
    }


LABELS = {
    "cached": "nn.Transformer dec. token (torch: KV cache + cached memory)",
    "encoder": "nn.Transformer dec. token (torch: encoder recomputed, as normrt)",
    "forward": "nn.Transformer dec. token (torch: forward over prefix, no cache)",
}


def run(ctx):
    generator = torch.Generator().manual_seed(5000)
    model = Seq2Seq(VOCAB, E, NHEAD, LAYERS, FF, MAX_POS).eval()
    randomize(model, generator)
    src = torch.randint(0, VOCAB, (1, SOURCE), generator=generator)
    prefix = torch.randint(0, VOCAB, (1, POSITION), generator=generator)
    token = torch.randint(0, VOCAB, (1, 1), generator=generator)
    stem = ctx.path("seq2seq")
    save_safetensors(stem + ".safetensors",
                     {k: v.contiguous() for k, v in model.state_dict().items()})
    with open(stem + ".json", "w") as f:
        json.dump(normrt_config(), f, indent=2)
    contenders, checks, notes = {}, {}, {name: [] for name in LABELS}
    with torch.inference_mode():
        variants = torch_variants(model, src, prefix, token)
        reference = variants["forward"][0]().numpy()
        for name, (call, prepare) in variants.items():
            contenders[f"torch f32 {name}"] = (call, prepare)
            if name != "forward":  # the hand-written decoder is nn.Transformer's model
                prepare()
                diff, scale = agreement(call().numpy(), reference)
                notes[name].append(f"torch {name} vs nn.Transformer.forward: max|Δ| {diff:.1e} "
                                   f"(max|ref| {scale:.2g})")
        if ctx.torch_bf16:
            for name, pair in torch_variants(as_bf16(model), src, prefix, token).items():
                contenders[f"torch bf16 {name}"] = pair
        for dtype in ctx.dtypes:
            try:
                session = ctx.convert_and_load(stem + ".json", stem + ".safetensors", "seq2seq",
                                               dtype).session()
            except converter.ConvertError as error:
                notes["cached"].append(f"normrt {dtype}: not converted ({error})")
                continue
            decode, prefill = contenders[f"normrt {dtype}"] = normrt_contender(
                session, *(t[0].numpy().astype(np.int32) for t in (src, prefix, token)))
            prefill()
            decode()
            checks[dtype] = agreement(session.output("logits"), reference)
        times = ctx.measure(contenders, warmup=2, reps=30)
    shape = f"E={E} {LAYERS}+{LAYERS} heads={NHEAD} FF={FF} V={VOCAB} src={SOURCE} pos={POSITION}"
    for name, label in LABELS.items():
        for dtype in [d for d in ctx.dtypes if d in checks] or ["—"]:
            diff, scale = checks.get(dtype, (None, None))
            row_notes = notes[name] if dtype in (ctx.dtypes[0], "—") else []
            ctx.add(Row(label, shape, dtype, normrt=times.get(f"normrt {dtype}"),
                        torch=times[f"torch f32 {name}"],
                        torch_bf16=times.get(f"torch bf16 {name}") if dtype != "f32" else None,
                        max_abs_diff=diff, max_abs_ref=scale, notes=row_notes))


def normrt_contender(session, src, prefix, token):
    """(decode, prefill): prefill feeds the source and the target prefix after
    a reset; decode feeds the source and one target token."""
    def prefill():
        session.reset()
        session.set_input("src_ids", src)
        session.set_input("tgt_ids", prefix)
        session.run()

    def decode():
        session.set_input("src_ids", src)
        session.set_input("tgt_ids", token)
        session.run()

    return decode, prefill
