"""One decoder token of a Llama-style model with a KV cache: a 32-token
prompt is fed first (untimed, before every timed call on both sides), then
the 33rd token (position 32) is timed: embedding, 6 pre-norm layers
(RMSNorm, rope, GQA attention over the cache, SwiGLU), final norm, lm_head.

PyTorch side: Hugging Face LlamaForCausalLM with past_key_values
(DynamicCache) and its default attention (sdpa). normrt side: the same
checkpoint (safetensors + HF config.json, as tests/models/llama/make_fixtures.py
writes them) through normrt-convert; the prompt is fed in one run after
Session reset, the token in the next run."""
import json

import numpy as np
import torch

from torch_bench.context import agreement, as_bf16

SIZES = dict(vocab_size=32000, hidden_size=1024, intermediate_size=2816, num_hidden_layers=6,
             num_attention_heads=16, num_key_value_heads=4)
POSITION = 32  # tokens already in the cache when the timed token arrives
MAX_SEQ = 64   # normrt's KV cache rows (--max-seq): small, so reset() is cheap


def make_model(generator, max_positions=2048):
    from transformers import LlamaConfig, LlamaForCausalLM
    config = LlamaConfig(**SIZES, max_position_embeddings=max_positions, rms_norm_eps=1e-5,
                         rope_theta=10000.0, tie_word_embeddings=False, hidden_act="silu",
                         attention_bias=False, mlp_bias=False)
    model = LlamaForCausalLM(config).eval()
    with torch.no_grad():  # realistic magnitudes: unit-variance projections, gains near 1
        for _, p in model.named_parameters():
            noise = torch.randn(p.shape, generator=generator)
            p.copy_(1 + 0.1 * noise if p.dim() == 1 else noise / p.shape[-1] ** 0.5)
    return config, model


def torch_contender(m, prompt, token):
    """(decode, prefill) for one HF model; prefill refills the cache to POSITION."""
    state = {}

    def prefill():
        state["past"] = m(input_ids=prompt, use_cache=True).past_key_values

    def decode():
        return m(input_ids=token, past_key_values=state["past"], use_cache=True).logits[0]

    return decode, prefill


def normrt_contender(session, prompt, token):
    def prefill():
        session.reset()
        session.set_input("input_ids", prompt)
        session.run()

    def decode():
        session.set_input("input_ids", token)
        session.run()

    return decode, prefill


def run(ctx):
    from export_torch import save_safetensors
    generator = torch.Generator().manual_seed(3000)
    config, model = make_model(generator)
    prefix = ctx.path("llama")
    save_safetensors(prefix + ".safetensors",
                     {k: v.contiguous() for k, v in model.state_dict().items()})
    with open(prefix + ".config.json", "w") as f:
        json.dump(json.loads(config.to_json_string()), f, indent=2, sort_keys=True)
    prompt = torch.randint(0, SIZES["vocab_size"], (1, POSITION), generator=generator)
    token = torch.randint(0, SIZES["vocab_size"], (1, 1), generator=generator)
    contenders, checks = {}, {}
    with torch.inference_mode():
        decode, prefill = contenders["torch f32"] = torch_contender(model, prompt, token)
        prefill()
        reference = decode().numpy()
        if ctx.torch_bf16:
            contenders["torch bf16"] = torch_contender(as_bf16(model), prompt, token)
        for dtype in ctx.dtypes:
            session = ctx.convert_and_load(prefix + ".config.json", prefix + ".safetensors",
                                           "llama", dtype, ["--max-seq", str(MAX_SEQ)]).session()
            decode, prefill = contenders[f"normrt {dtype}"] = normrt_contender(
                session, prompt[0].numpy().astype(np.int32), token[0].numpy().astype(np.int32))
            prefill()
            decode()
            checks[dtype] = agreement(session.output("logits"), reference)
        times = ctx.measure(contenders, warmup=2, reps=32)
    s = SIZES
    shape = (f"H={s['hidden_size']} L={s['num_hidden_layers']} heads={s['num_attention_heads']}"
             f"/{s['num_key_value_heads']}kv FF={s['intermediate_size']} V={s['vocab_size']} "
             f"pos={POSITION}")
    ctx.add_rows("Llama decoder token (KV cache)", shape, times, checks)
