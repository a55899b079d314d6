"""The nn.Transformer encoder-decoder of docs/torch_transformer.md (the module
of tests/models/seq2seq/make_fixtures.py, sized by the caller), and an
incremental decoder over its own modules for PyTorch: nn.Transformer has no
KV-cache API, so one decoder token with a cache is written here from the
layer weights (post-norm layers, as nn.Transformer's default) and checked
against nn.Transformer's own forward by the case."""
import torch
import torch.nn.functional as F
from torch import nn


class Seq2Seq(nn.Module):
    def __init__(self, vocab, d_model, nhead, layers, ff, max_positions):
        super().__init__()
        self.src_embedding = nn.Embedding(vocab, d_model)
        self.tgt_embedding = nn.Embedding(vocab, d_model)
        self.pos_embedding = nn.Embedding(max_positions, d_model)
        self.transformer = nn.Transformer(d_model, nhead, layers, layers, ff, dropout=0.0,
                                          activation="relu", batch_first=True, norm_first=False)
        self.generator = nn.Linear(d_model, vocab)

    def embed(self, table, ids, start=0):
        """ids [1, T] → [1, T, E]: token rows + learned position rows start…start+T−1."""
        positions = torch.arange(start, start + ids.shape[1])
        return table(ids) + self.pos_embedding(positions)[None]

    def encode(self, src):
        return self.transformer.encoder(self.embed(self.src_embedding, src))

    def forward(self, src, tgt):
        """Teacher forcing over the whole target: logits [1, T, V]."""
        mask = nn.Transformer.generate_square_subsequent_mask(tgt.shape[1])
        h = self.transformer(self.embed(self.src_embedding, src),
                             self.embed(self.tgt_embedding, tgt), tgt_mask=mask)
        return self.generator(h)


def _heads(x, nhead):
    """[T, E] → [nhead, T, E/nhead]."""
    return x.view(x.shape[0], nhead, -1).transpose(0, 1)


class IncrementalDecoder:
    """Decoder state for one target sequence: per layer a self-attention K/V
    cache of `max_target` rows and the cross-attention K/V of the memory."""

    def __init__(self, model, max_target):
        self.model = model
        t = model.transformer
        self.layers = t.decoder.layers
        self.nhead = self.layers[0].self_attn.num_heads
        e, dtype = model.generator.in_features, model.generator.weight.dtype
        self.k = [torch.zeros(max_target, e, dtype=dtype) for _ in self.layers]
        self.v = [torch.zeros(max_target, e, dtype=dtype) for _ in self.layers]
        self.position = 0

    def set_memory(self, memory):
        """memory [1, L, E] (the encoder output) → each layer's cross K, V [L, E]."""
        self.cross = []
        for layer in self.layers:
            w, b = layer.multihead_attn.in_proj_weight, layer.multihead_attn.in_proj_bias
            e = w.shape[1]
            self.cross.append((F.linear(memory[0], w[e:2 * e], b[e:2 * e]),
                               F.linear(memory[0], w[2 * e:], b[2 * e:])))

    def _attend(self, q, k, v, out_proj, causal):
        o = F.scaled_dot_product_attention(_heads(q, self.nhead), _heads(k, self.nhead),
                                           _heads(v, self.nhead), is_causal=causal)
        return F.linear(o.transpose(0, 1).reshape(q.shape), out_proj.weight, out_proj.bias)

    def step(self, ids):
        """ids [1, T] at positions position…position+T−1 → logits [T, V].
        T > 1 only from position 0 (a prompt); then one token per call."""
        t, start = ids.shape[1], self.position
        assert t == 1 or start == 0, "a multi-token step must start the sequence"
        x = self.model.embed(self.model.tgt_embedding, ids, start)[0]  # [T, E]
        end = start + t
        for n, layer in enumerate(self.layers):
            sa = layer.self_attn
            q, k, v = F.linear(x, sa.in_proj_weight, sa.in_proj_bias).chunk(3, -1)
            self.k[n][start:end], self.v[n][start:end] = k, v
            a = self._attend(q, self.k[n][:end], self.v[n][:end], sa.out_proj, causal=t > 1)
            x = layer.norm1(x + a)
            ca = layer.multihead_attn
            e = x.shape[-1]
            q = F.linear(x, ca.in_proj_weight[:e], ca.in_proj_bias[:e])
            a = self._attend(q, *self.cross[n], ca.out_proj, causal=False)
            x = layer.norm2(x + a)
            x = layer.norm3(x + layer.linear2(F.relu(layer.linear1(x))))
        self.position = end
        return self.model.generator(self.model.transformer.decoder.norm(x))
