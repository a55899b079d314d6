"""One BERT encoder pass at batch 1 over S = 32 and S = 128 tokens
([CLS] random word pieces [SEP], no padding, no mask), output
last_hidden_state [S, H].

The model is the real all-MiniLM-L6-v2 when its folder exists
(scripts/fetch_minilm.sh), else a random BERT of the same shape (6 layers,
H = 384, 12 heads, FF 1536, vocab 30522). PyTorch side: Hugging Face
BertModel without the pooler, default attention (sdpa). normrt side: the same
config.json + safetensors through normrt-convert (--pooling none); the
session is reset before every pass (untimed), as an encoder session must be
(docs/bert_encoder.md)."""
import json
import os

import numpy as np
import torch

from torch_bench.context import agreement, as_bf16
from torch_bench.hf_models import MINILM_SHAPE, init_bert_weights

LENGTHS = [32, 128]


def random_minilm(ctx, generator):
    """A MiniLM-shaped BertModel with unit-scale random weights, saved as HF files."""
    from export_torch import save_safetensors
    from transformers import BertConfig, BertModel
    config = BertConfig(**MINILM_SHAPE, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    model = BertModel(config, add_pooling_layer=False).eval()
    init_bert_weights(model, generator)
    folder = ctx.path("random_minilm")
    os.makedirs(folder, exist_ok=True)
    state = {k: v.contiguous() for k, v in model.state_dict().items()
             if k != "embeddings.position_ids"}
    save_safetensors(os.path.join(folder, "model.safetensors"), state)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(json.loads(config.to_json_string()), f, indent=2, sort_keys=True)
    return model, folder


def run(ctx, minilm_dir):
    from transformers import BertModel
    from transformers.utils import logging
    logging.set_verbosity_error()  # the dropped pooler's load report is expected
    logging.disable_progress_bar()
    generator = torch.Generator().manual_seed(4000)
    if os.path.exists(os.path.join(minilm_dir, "model.safetensors")):
        folder, label = minilm_dir, "BERT encoder (all-MiniLM-L6-v2)"
        model = BertModel.from_pretrained(folder, add_pooling_layer=False).eval()
    else:
        model, folder = random_minilm(ctx, generator)
        label = "BERT encoder (random, MiniLM shape)"
    config = os.path.join(folder, "config.json")
    weights = os.path.join(folder, "model.safetensors")
    sessions = {dtype: ctx.convert_and_load(config, weights, "bert", dtype,
                                            ["--max-seq", str(max(LENGTHS))]).session()
                for dtype in ctx.dtypes}
    bf16_model = as_bf16(model) if ctx.torch_bf16 else None
    c = model.config
    for length in LENGTHS:
        ids = torch.randint(1000, 30000, (1, length), generator=generator)
        ids[0, 0], ids[0, -1] = 101, 102  # [CLS] ... [SEP]
        ids_np = ids[0].numpy().astype(np.int32)
        contenders, checks = {}, {}
        with torch.inference_mode():
            def forward(m=model):
                return m(input_ids=ids).last_hidden_state[0]

            reference = forward().numpy()
            contenders["torch f32"] = (forward, None)
            if bf16_model is not None:
                contenders["torch bf16"] = (lambda: forward(bf16_model), None)
            for dtype, session in sessions.items():
                def encode(s=session):
                    s.set_input("input_ids", ids_np)
                    s.run()

                session.reset()
                encode()
                checks[dtype] = agreement(session.output("last_hidden_state"), reference)
                contenders[f"normrt {dtype}"] = (encode, session.reset)
            times = ctx.measure(contenders, warmup=2, reps=60 if length <= 32 else 30)
        shape = (f"S={length} H={c.hidden_size} L={c.num_hidden_layers} "
                 f"heads={c.num_attention_heads} FF={c.intermediate_size}")
        ctx.add_rows(label, shape, times, checks)
