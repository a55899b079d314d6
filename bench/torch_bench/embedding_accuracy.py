"""How close each side's sentence embedding is to PyTorch float32's: every
sentence of bench/peer_sentences.txt (short, long, unicode, numbers, code)
tokenized by the model's own WordPiece vocabulary (Hugging Face tokenizer,
truncated to max_len tokens as sentence-transformers does), run unpadded at
batch 1 on every side; the embedding is last_hidden_state mean-pooled over
the tokens and L2-normalized (all-MiniLM-L6-v2's pooling), in float64; the
figure is its cosine with PyTorch float32's embedding of the same ids,
worst and mean over the sentences."""
import os

import numpy as np

SENTENCES = os.path.join(os.path.dirname(__file__), "..", "peer_sentences.txt")


def load_sentences(path=SENTENCES):
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f
                if line.strip() and not line.startswith("#")]


def tokenize(folder, sentences, max_len):
    """[int64 ids [S]] with [CLS] and [SEP], at most max_len ids each."""
    from transformers import AutoTokenizer
    tokenizer = AutoTokenizer.from_pretrained(folder)
    encoded = tokenizer(sentences, truncation=True, max_length=max_len)["input_ids"]
    return [np.asarray(ids, dtype=np.int64) for ids in encoded]


def random_sequences(count, max_len, generator, cls=101, sep=102):
    """Stand-ins when the model has no real vocabulary: random word pieces
    with lengths spread from 3 to max_len."""
    lengths = np.linspace(3, max_len, count).astype(int)
    out = []
    for length in lengths:
        ids = generator.integers(1000, 30000, size=length)
        ids[0], ids[-1] = cls, sep
        out.append(ids.astype(np.int64))
    return out


def embedding(hidden):
    pooled = np.asarray(hidden, dtype=np.float64).mean(axis=0)
    return pooled / np.linalg.norm(pooled)


def cosines(sides, reference, sequences):
    """{side name: (worst, mean)} of cos(side, reference) over the sequences;
    reference is the PyTorch float32 Side."""
    expected = [embedding(reference.hidden(ids)) for ids in sequences]
    result = {}
    for side in sides:
        values = [float(embedding(side.hidden(ids)) @ e) for ids, e in zip(sequences, expected)]
        result[side.name] = (min(values), float(np.mean(values)))
    return result
