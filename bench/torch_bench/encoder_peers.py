"""One BERT encoder folder on every runtime, at every precision each offers:
the converted files are made once (thread-independent), then sides(threads)
builds the sessions for one thread count.

A Side runs one sequence of token ids ([CLS] ... [SEP], no padding) at
batch 1 and returns last_hidden_state [S, H]:
- normrt: normrt-convert --pooling none --dtype f32 | bf16 (and int8 /
  bf16-fast once the converter offers them: each is tried and skipped with
  the converter's message if refused), a session with `threads` threads,
  reset before every pass (untimed), as an encoder session must be;
- ONNX Runtime: onnx_peer's export, f32 and quantize_dynamic int8 (per
  tensor and per channel), fed input_ids and an all-ones attention_mask;
- CTranslate2: ct2_peer's conversion, compute types float32, int8,
  int8_float32 (those this CPU supports), forward_batch on one sequence;
- PyTorch: HF BertModel (sdpa attention, no pooler), float32 and a
  bfloat16 copy, torch.set_num_threads(threads) by the caller."""
from dataclasses import dataclass
from typing import Callable

import numpy as np
import torch

from torch_bench import ct2_peer, normrt_variants, onnx_peer
from torch_bench.context import as_bf16

ORT_VARIANTS = {"f32": None, "int8 per-tensor": False, "int8 per-channel": True}
CT2_TYPES = ["float32", "int8", "int8_float32"]


@dataclass
class Side:
    name: str       # "ORT int8 per-channel"
    runtime: str    # normrt | onnxruntime | ctranslate2 | torch
    precision: str  # f32 | bf16 | int8 ... as the runtime names it
    bind: Callable  # ids int64 [S] -> (call, prepare or None), for timing.measure_rounds
    hidden: Callable  # ids int64 [S] -> float32 [S, H] (not timed)


class EncoderPeers:
    def __init__(self, ctx, folder, name, max_seq, precisions="all", log=print):
        """folder: HF BertModel files; name: prefix of the files in ctx's
        workdir; precisions: "all" or "f32" (f32 sides only)."""
        from transformers import BertModel
        full = precisions == "all"
        self.normrt, self.skipped = normrt_variants.convert_all(
            ctx, folder, name, ["--pooling", "none", "--max-seq", str(max_seq)],
            normrt_variants.DTYPES if full else ["f32"])
        log(f"  normrt: {', '.join(self.normrt)} converted")
        f32_onnx = onnx_peer.export_bert(folder, ctx.path(f"{name}.onnx"))
        self.onnx = {"f32": f32_onnx}
        for variant, per_channel in ORT_VARIANTS.items():
            if per_channel is not None and full:
                suffix = "int8pc" if per_channel else "int8"
                self.onnx[variant] = onnx_peer.quantize_int8(
                    f32_onnx, ctx.path(f"{name}.{suffix}.onnx"), per_channel)
        log(f"  onnxruntime: {', '.join(self.onnx)} exported")
        self.ct2_dir = ct2_peer.convert(folder, ctx.path(f"{name}.ct2"))
        supported = ct2_peer.supported_compute_types()
        self.ct2_types = []
        for compute_type in CT2_TYPES if full else ["float32"]:
            if compute_type in supported:
                self.ct2_types.append(compute_type)
            else:
                self.skipped.append(f"CTranslate2 {compute_type}: not supported on this CPU "
                                    f"(supported: {', '.join(sorted(supported))})")
        self.torch = {"f32": BertModel.from_pretrained(folder, add_pooling_layer=False).eval()}
        if full:
            self.torch["bf16"] = as_bf16(self.torch["f32"])
        for note in self.skipped:
            log("  " + note)

    def sides(self, threads):
        sides = [_normrt_side(m, dtype, threads) for dtype, m in self.normrt.items()]
        sides += [_ort_side(path, variant, threads) for variant, path in self.onnx.items()]
        sides += [_ct2_side(self.ct2_dir, ct, threads) for ct in self.ct2_types]
        sides += [_torch_side(m, dtype) for dtype, m in self.torch.items()]
        return sides


def _normrt_side(model, dtype, threads):
    session = model.session(threads)

    def bind(ids):
        ids32 = np.ascontiguousarray(ids, dtype=np.int32)

        def call():
            session.set_input("input_ids", ids32)
            session.run()

        return call, session.reset

    def hidden(ids):
        call, reset = bind(ids)
        reset()
        call()
        return session.output("last_hidden_state")

    return Side(f"normrt {dtype}", "normrt", dtype, bind, hidden)


def _ort_side(path, variant, threads):
    session = onnx_peer.session(path, threads)

    def bind(ids):
        feeds = onnx_peer.bert_feeds(ids)
        return (lambda: session.run(None, feeds)), None

    def hidden(ids):
        return session.run(None, onnx_peer.bert_feeds(ids))[0][0]

    return Side(f"ORT {variant}", "onnxruntime", variant, bind, hidden)


def _ct2_side(path, compute_type, threads):
    encoder = ct2_peer.encoder(path, compute_type, threads)

    def bind(ids):
        batch = [[int(i) for i in ids]]
        return (lambda: encoder.forward_batch(batch)), None

    def hidden(ids):
        out = encoder.forward_batch([[int(i) for i in ids]])
        return np.asarray(out.last_hidden_state, dtype=np.float32)[0]

    return Side(f"CT2 {compute_type}", "ctranslate2", compute_type, bind, hidden)


def _torch_side(model, dtype):
    def bind(ids):
        batch = torch.from_numpy(np.asarray(ids, dtype=np.int64))[None]

        def call():
            with torch.inference_mode():
                return model(input_ids=batch).last_hidden_state

        return call, None

    def hidden(ids):
        call, _ = bind(ids)
        return call()[0].float().numpy()

    return Side(f"torch {dtype}", "torch", dtype, bind, hidden)
