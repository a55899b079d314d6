"""Hugging Face model folders the peer benchmark feeds to every runtime: the
same config.json + model.safetensors go to normrt-convert, to
torch.onnx.export (through transformers) and to CTranslate2's converter,
which also needs a tokenizer in the folder to build its vocabulary.

Random models get realistic magnitudes (as the test fixture scripts do):
matrices N(0, 1/fan_in), norm gains near 1, small biases."""
import json
import os

import torch

from torch_bench import stamp

MINILM_SHAPE = dict(vocab_size=30522, hidden_size=384, num_hidden_layers=6,
                    num_attention_heads=12, intermediate_size=1536, hidden_act="gelu",
                    max_position_embeddings=512, type_vocab_size=2, layer_norm_eps=1e-12)
BERT_BASE_SHAPE = dict(MINILM_SHAPE, hidden_size=768, num_hidden_layers=12,
                       intermediate_size=3072)
SPECIAL_WORDPIECES = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
LLAMA_SPECIALS = ["<unk>", "<s>", "</s>"]


def init_bert_weights(model, generator):
    """Unit-scale random weights for a BertModel, in place (as
    tests/models/transformer/make_tiny_bert_fixtures.py)."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            noise = torch.randn(p.shape, generator=generator)
            if name.endswith("LayerNorm.weight"):
                p.copy_(1 + 0.2 * noise)
            elif name.endswith("bias"):
                p.copy_(0.1 * noise)
            elif "embeddings" in name:
                p.copy_(noise)
            else:
                p.copy_(noise / p.shape[1] ** 0.5)


def _write_wordpiece_vocab(folder, vocab_size):
    """A vocab.txt of vocab_size pieces (the BERT specials, then w5, w6, ...):
    enough for CTranslate2's converter, which reads the vocabulary only."""
    with open(os.path.join(folder, "vocab.txt"), "w") as f:
        for i in range(vocab_size):
            f.write((SPECIAL_WORDPIECES[i] if i < len(SPECIAL_WORDPIECES) else f"w{i}") + "\n")
    with open(os.path.join(folder, "tokenizer_config.json"), "w") as f:
        json.dump({"tokenizer_class": "BertTokenizer", "do_lower_case": True}, f)


def random_bert_folder(folder, shape, seed):
    """A BertModel (with its pooler, as checkpoints have it) of `shape` with
    random weights, saved with save_pretrained and a synthetic vocab.txt.
    Reused while shape and seed are the same."""
    def build(out):
        from transformers import BertConfig, BertModel
        # position_embedding_type: CTranslate2's converter asserts it; transformers 5
        # no longer writes it by default.
        config = BertConfig(**shape, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
                            position_embedding_type="absolute")
        model = BertModel(config).eval()
        init_bert_weights(model, torch.Generator().manual_seed(seed))
        model.save_pretrained(out)
        _write_wordpiece_vocab(out, shape["vocab_size"])

    return stamp.make(folder, {"bert": shape, "seed": seed, "format": 2}, build)


def llama_token(i):
    """The token string of id i in llama_folder's vocabulary."""
    return LLAMA_SPECIALS[i] if i < len(LLAMA_SPECIALS) else f"t{i}"


def _write_llama_tokenizer(folder, vocab_size):
    """A word-level tokenizer.json whose token i is llama_token(i), so that
    CTranslate2 (which takes prompts as token strings) gets the same ids."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    vocab = {llama_token(i): i for i in range(vocab_size)}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer.save(os.path.join(folder, "tokenizer.json"))
    with open(os.path.join(folder, "tokenizer_config.json"), "w") as f:
        json.dump({"tokenizer_class": "PreTrainedTokenizerFast", "unk_token": "<unk>",
                   "bos_token": "<s>", "eos_token": "</s>"}, f)


def llama_folder(folder, seed, max_positions):
    """The Llama of bench/torch_bench/llama_case.py (same sizes and init),
    saved with save_pretrained and a word-level tokenizer."""
    from torch_bench.llama_case import SIZES, make_model

    def build(out):
        _, model = make_model(torch.Generator().manual_seed(seed), max_positions)
        model.save_pretrained(out)
        _write_llama_tokenizer(out, SIZES["vocab_size"])

    return stamp.make(folder, {"llama": SIZES, "seed": seed, "max_positions": max_positions},
                      build)
