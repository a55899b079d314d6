"""One Llama decoder token at a given context (tokens already in the KV
cache) on every side: the model of llama_case.py (H = 1024, 6 layers, 16
heads / 4 KV heads, FF 2816, vocab 32000, random weights), the same prompt
and token ids everywhere, logits compared with PyTorch float32's.

What each timed call is:
- normrt: one run of the token; before it (untimed) the session's KV cache
  and position are copied from a session prefilled once with the prompt
  (normrt_session_copy_state).
- PyTorch: HF LlamaForCausalLM with the prompt's DynamicCache; before each
  call (untimed) the cache is cropped back to the context.
- ONNX Runtime: onnx_peer.export_llama_step (past key values in, presents
  out), fed PyTorch's cache of the prompt as numpy arrays; the call returns
  the logits and the presents (past + 1 row, copied: that is the exported
  model's contract).
- CTranslate2: Generator.generate_tokens on the prompt with max_length
  STEPS + 1; the time between consecutive yielded tokens is one decoding
  step with its own cache at context, context + 1, ... (the prompt's
  prefill before the first token is not timed). Its Python API has no call
  for one step on a kept cache; a static prompt (cached state restored per
  call) costs far more than a step (docs/bench_models.md), so the token
  gaps are the fair figure. Its logits are checked once through
  generate_batch with the prompt as static_prompt."""
import time

import numpy as np
import torch

from torch_bench import ct2_peer, hf_compat, hf_models, normrt_variants, onnx_peer
from torch_bench.context import agreement
from torch_bench.llama_case import SIZES
from torch_bench.peer_report import PeerRow
from torch_bench.timing import SelfTimed

CONTEXTS = [512, 2048]
STEPS = 4  # CTranslate2: decoding steps timed per prefill
REPS = 16
SEED = 3000


class LlamaCase:
    def __init__(self, env, contexts=CONTEXTS, precisions="all"):
        from transformers import LlamaForCausalLM
        self.env, self.contexts = env, contexts
        ctx = env.ctx
        self.folder = hf_models.llama_folder(ctx.path("llama_peers"), SEED, 4096)
        self.normrt, skipped = normrt_variants.convert_all(
            ctx, self.folder, "llama_peers", ["--max-seq", str(max(contexts) + 1)],
            normrt_variants.DTYPES if precisions == "all" else ["f32"])
        for note in skipped:
            env.log("  " + note)
        self.model = LlamaForCausalLM.from_pretrained(self.folder).eval()
        self.cache_argument = hf_compat.cache_argument(self.model)
        self.onnx = onnx_peer.export_llama_step(self.folder, ctx.path("llama_peers.onnx"))
        self.past_names, _ = onnx_peer.llama_io_names(SIZES["num_hidden_layers"])
        self.ct2_dir = ct2_peer.convert(self.folder, ctx.path("llama_peers.ct2"))
        generator = torch.Generator().manual_seed(SEED + 1)
        self.at = {}
        for context in contexts:
            start = time.time()
            self.at[context] = self._prefill(context, generator)
            env.log(f"  context {context}: prompts prefilled ({time.time() - start:.0f} s)")

    def _prefill(self, context, generator):
        """Everything a context needs once: ids, PyTorch's cache and logits,
        normrt sessions holding the prompt, ORT's past feeds."""
        vocab = SIZES["vocab_size"]
        prompt = torch.randint(3, vocab, (1, context), generator=generator)
        token = torch.randint(3, vocab, (1, 1), generator=generator)
        with torch.inference_mode():
            cache = hf_compat.output_cache(self.model(input_ids=prompt, use_cache=True,
                                                      logits_to_keep=1))
            reference = self.model(input_ids=token, use_cache=True,
                                   **{self.cache_argument: cache}).logits[0, -1].numpy()
            hf_compat.crop_to(cache, context)
        sources = {}
        for dtype, model in self.normrt.items():
            session = model.session()
            session.set_input("input_ids", prompt[0].numpy().astype(np.int32))
            session.run()
            sources[dtype] = session
        feeds = {"input_ids": token.numpy()}
        for i, layer in enumerate(cache.layers):
            feeds[self.past_names[2 * i]] = np.ascontiguousarray(layer.keys.numpy())
            feeds[self.past_names[2 * i + 1]] = np.ascontiguousarray(layer.values.numpy())
        return dict(prompt=prompt, token=token, cache=cache, reference=reference,
                    sources=sources, feeds=feeds)

    def _normrt(self, dtype, threads, at):
        session = self.normrt[dtype].session(threads)
        token = at["token"][0].numpy().astype(np.int32)

        def prepare():
            session.copy_state_from(at["sources"][dtype])

        def call():
            session.set_input("input_ids", token)
            session.run()

        prepare()
        call()
        return (call, prepare), agreement(session.output("logits")[-1], at["reference"])

    def _torch(self, at):
        cache, token, context = at["cache"], at["token"], at["prompt"].shape[1]

        kwargs = {self.cache_argument: cache}

        def call():
            with torch.inference_mode():
                return self.model(input_ids=token, use_cache=True, **kwargs).logits

        def prepare():
            hf_compat.crop_to(cache, context)

        prepare()
        logits = call()[0, -1].numpy()
        return (call, prepare), agreement(logits, at["reference"])

    def _ort(self, threads, at):
        session, feeds = onnx_peer.session(self.onnx, threads), at["feeds"]
        logits = session.run(None, feeds)[0][0, -1]
        return (lambda: session.run(None, feeds), None), agreement(logits, at["reference"])

    def _ct2(self, threads, at):
        generator = ct2_peer.generator(self.ct2_dir, "float32", threads)
        prompt = [hf_models.llama_token(int(i)) for i in at["prompt"][0]]
        token = [hf_models.llama_token(int(at["token"][0, 0]))]
        checked = generator.generate_batch([token], static_prompt=prompt, max_length=1,
                                           return_logits_vocab=True)
        logits = np.asarray(checked[0].logits[0], dtype=np.float32).reshape(-1)

        def sample():
            stamps = []
            for _ in generator.generate_tokens(prompt, max_length=STEPS + 1, end_token=[]):
                stamps.append(time.perf_counter_ns())
            return [b - a for a, b in zip(stamps, stamps[1:])]

        return (SelfTimed(sample), None), agreement(logits, at["reference"])

    def measure(self, threads):
        for context in self.contexts:
            at = self.at[context]
            contenders, checks, kinds = {}, {}, {}
            for dtype in self.normrt:
                name = f"normrt {dtype}"
                contenders[name], checks[name] = self._normrt(dtype, threads, at)
                kinds[name] = ("normrt", dtype)
            contenders["torch f32"], checks["torch f32"] = self._torch(at)
            contenders["ORT f32"], checks["ORT f32"] = self._ort(threads, at)
            name = "CT2 float32 (token gap)"
            contenders[name], checks[name] = self._ct2(threads, at)
            kinds.update({"torch f32": ("torch", "f32"), "ORT f32": ("onnxruntime", "f32"),
                          name: ("ctranslate2", "float32")})
            times = self.env.ctx.measure(contenders, warmup=2, reps=REPS)
            self.env.add_rows([PeerRow("Llama decoder token", f"context={context}", threads,
                                       name, runtime, precision, times[name],
                                       max_abs_diff=checks[name][0], max_abs_ref=checks[name][1])
                               for name, (runtime, precision) in kinds.items()])
