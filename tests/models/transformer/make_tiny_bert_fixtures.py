#!/usr/bin/env python3
"""Writes the tiny random-weight BERT fixtures of test_bert_encoder.

Each fixture is a Hugging Face BertModel with a tiny BertConfig and random
weights (PyTorch's own module, transformers.BertModel), saved as safetensors,
plus <name>.expected.txt: the config, token ids and the model's outputs
computed by PyTorch in float64 from exactly the stored weights:

  config <vocab> <hidden> <layers> <heads> <intermediate> <act> <max_pos> <type_vocab> <eps> <prefix>
  ids <n> <id...>                      (the first S of them form each case)
  <output> <S> <rows> <cols> <values...>

Outputs: last_hidden_state for S = 7 and S = 1, the sentence embedding
(mean over tokens, F.normalize) for S = 7, and bf16_last_hidden_state: the
same with every matrix the builder stores as bfloat16 (Linear weights, word
and position tables; not the token type row, which it keeps in f32) rounded
to bfloat16 first, so the bf16 path is checked at float tolerance too.

Run with a Python that has torch, transformers and safetensors
(/work/venv/bin/python make_tiny_bert_fixtures.py); writes next to itself.
"""
import os

import torch
import torch.nn.functional as F
from safetensors.torch import save_file
from transformers import BertConfig, BertModel

HERE = os.path.dirname(os.path.abspath(__file__))

FIXTURES = [
    # name, hidden_act, stored dtype, tensor name prefix
    ("tiny_bert_gelu", "gelu", torch.float32, ""),
    ("tiny_bert_tanh", "gelu_new", torch.float16, "bert."),
]


def randomize(model, generator):
    """Weights of unit-scale activations (HF's 0.02 init would leave the
    encoder close to its LayerNorm biases)."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            noise = torch.randn(p.shape, generator=generator, dtype=torch.float64)
            if name.endswith("LayerNorm.weight"):
                p.copy_(1 + 0.2 * noise)
            elif name.endswith("bias"):
                p.copy_(0.1 * noise)
            elif "embeddings" in name:
                p.copy_(noise)
            else:  # [out, in]
                p.copy_(noise / p.shape[1] ** 0.5)


def run(model, ids):
    with torch.no_grad():
        return model(input_ids=torch.tensor([ids])).last_hidden_state[0]


def write_values(out, name, s, tensor):
    rows, cols = tensor.shape
    values = " ".join(repr(float(v)) for v in tensor.reshape(-1).tolist())
    out.write(f"{name} {s} {rows} {cols} {values}\n")


def main():
    for index, (name, act, dtype, prefix) in enumerate(FIXTURES):
        generator = torch.Generator().manual_seed(1234 + index)
        config = BertConfig(vocab_size=64, hidden_size=32, num_hidden_layers=2,
                            num_attention_heads=4, intermediate_size=37, hidden_act=act,
                            max_position_embeddings=40, type_vocab_size=2,
                            layer_norm_eps=1e-12, hidden_dropout_prob=0.0,
                            attention_probs_dropout_prob=0.0)
        model = BertModel(config).eval()
        randomize(model, generator)
        # Store in `dtype`; the reference uses exactly the stored values.
        state = {k: v.detach().to(dtype).contiguous() for k, v in model.state_dict().items()
                 if k != "embeddings.position_ids"}
        save_file({prefix + k: v for k, v in state.items()},
                  os.path.join(HERE, name + ".safetensors"))
        model.load_state_dict({k: v.to(torch.float32) for k, v in state.items()}, strict=False)
        model = model.double()

        ids = torch.randint(0, 64, (7,), generator=generator).tolist()
        with open(os.path.join(HERE, name + ".expected.txt"), "w") as out:
            out.write(f"config 64 32 2 4 37 {act} 40 2 1e-12 {prefix or '-'}\n")
            out.write("ids 7 " + " ".join(map(str, ids)) + "\n")
            full = run(model, ids)
            write_values(out, "last_hidden_state", 7, full)
            write_values(out, "last_hidden_state", 1, run(model, ids[:1]))
            write_values(out, "embedding", 7, F.normalize(full.mean(0, keepdim=True), dim=-1))
            with torch.no_grad():
                for k, p in model.named_parameters():
                    if p.dim() == 2 and "token_type" not in k:
                        p.copy_(p.to(torch.bfloat16).to(torch.float64))
            write_values(out, "bf16_last_hidden_state", 7, run(model, ids))


if __name__ == "__main__":
    main()
