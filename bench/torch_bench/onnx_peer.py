"""ONNX Runtime as a peer: the Hugging Face model exported with
torch.onnx.export, optionally int8 by onnxruntime.quantization.quantize_dynamic,
run by an InferenceSession on the CPU execution provider.

Exporter: the TorchScript path (`dynamo=False`) at opset 17, with dynamic
batch and sequence axes. With torch 2.15 both exporters work for BERT; ORT
ran the TorchScript graph fastest (docs/bench_models.md gives the
comparison), the export takes 1.5 s instead of 7 s, writes one file (no
external data, which quantize_dynamic then reads as is) and also exports
HF Llama with a cache (the dynamo path needs the cache class registered as
a pytree). BERT is exported with eager attention (plain MatMul/Softmax,
the pattern ORT's fusions know).

Sessions: intra_op_num_threads = threads, inter_op_num_threads = 1,
ORT_ENABLE_ALL graph optimizations, sequential execution."""
import contextlib
import logging
import os
import warnings

import numpy as np
import torch

from torch_bench import hf_compat, stamp

OPSET = 17


def _versions():
    import onnxruntime
    import transformers
    return {"torch": torch.__version__, "transformers": transformers.__version__,
            "onnxruntime": onnxruntime.__version__, "opset": OPSET}


@contextlib.contextmanager
def _quiet():
    """The exporters' and quantizer's warnings (tracer warnings on HF's
    shape checks, 'consider pre-processing') are expected; keep them out of
    the report."""
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            yield
        finally:
            root.setLevel(level)


class _BertHidden(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state


def export_bert(folder, output):
    """folder (HF BertModel) → output.onnx: inputs input_ids, attention_mask
    int64 [B, S]; output last_hidden_state [B, S, H]."""
    def build(out):
        from transformers import BertModel
        model = BertModel.from_pretrained(folder, add_pooling_layer=False,
                                          attn_implementation="eager").eval()
        ids = torch.randint(1000, 2000, (2, 16))
        axes = {0: "batch", 1: "sequence"}
        with _quiet(), torch.no_grad():
            torch.onnx.export(_BertHidden(model), (ids, torch.ones_like(ids)), out,
                              input_names=["input_ids", "attention_mask"],
                              output_names=["last_hidden_state"], opset_version=OPSET,
                              dynamo=False,
                              dynamic_axes={"input_ids": axes, "attention_mask": axes,
                                            "last_hidden_state": axes})

    return stamp.make(output, {"source": _folder_key(folder), **_versions()}, build)


class _LlamaStep(torch.nn.Module):
    """(input_ids [1, T], past key/value per layer [1, kv_heads, P, d]) →
    (logits [1, T, V], present key/value per layer [1, kv_heads, P + T, d])."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, *past):
        from transformers import DynamicCache
        cache = DynamicCache(config=self.model.config)
        for layer in range(len(past) // 2):
            cache.update(past[2 * layer], past[2 * layer + 1], layer)
        out = self.model(input_ids=input_ids, use_cache=True,
                         **{hf_compat.cache_argument(self.model): cache})
        present = []
        for layer in hf_compat.output_cache(out).layers:
            present += [layer.keys, layer.values]
        return (out.logits, *present)


def llama_io_names(layers):
    past = [f"past_{kind}_{i}" for i in range(layers) for kind in ("key", "value")]
    present = [f"present_{kind}_{i}" for i in range(layers) for kind in ("key", "value")]
    return past, present


def export_llama_step(folder, output):
    """folder (HF LlamaForCausalLM) → one decoding step with past key values
    as inputs (dynamic past length) and presents as outputs."""
    def build(out):
        from transformers import LlamaForCausalLM
        model = LlamaForCausalLM.from_pretrained(folder).eval()
        c = model.config
        heads_kv = c.num_key_value_heads
        head_dim = c.hidden_size // c.num_attention_heads
        past = [torch.randn(1, heads_kv, 16, head_dim) for _ in range(2 * c.num_hidden_layers)]
        past_names, present_names = llama_io_names(c.num_hidden_layers)
        axes = {n: {2: "past"} for n in past_names}
        axes.update({n: {2: "total"} for n in present_names})
        with _quiet(), torch.no_grad():
            torch.onnx.export(_LlamaStep(model), (torch.tensor([[5]]), *past), out,
                              input_names=["input_ids", *past_names],
                              output_names=["logits", *present_names], opset_version=OPSET,
                              dynamo=False, dynamic_axes=axes)

    return stamp.make(output, {"source": _folder_key(folder), **_versions()}, build)


def quantize_int8(source, output, per_channel):
    """quantize_dynamic: int8 weights (QInt8), activations quantized at run
    time; per_channel=False is ORT's default (one scale per tensor)."""
    def build(out):
        from onnxruntime.quantization import QuantType, quantize_dynamic
        with _quiet():
            quantize_dynamic(source, out, weight_type=QuantType.QInt8, per_channel=per_channel)

    key = {"source": stamp.file_key(source), "per_channel": per_channel, **_versions()}
    return stamp.make(output, key, build)


def session(path, threads):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    return ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])


def bert_feeds(ids, mask=None):
    """ids [S] or [B, S] → the exported BERT's feeds (mask all ones if None)."""
    ids = np.atleast_2d(np.asarray(ids, dtype=np.int64))
    mask = np.ones_like(ids) if mask is None else np.atleast_2d(np.asarray(mask, np.int64))
    return {"input_ids": ids, "attention_mask": mask}


def _folder_key(folder):
    return [stamp.file_key(os.path.join(folder, name))
            for name in ("config.json", "model.safetensors")]
