"""Encoder latency at batch 1 on every side (encoder_peers.py), per
sequence length, and for MiniLM the embedding accuracy of every side
(embedding_accuracy.py).

Token ids: [CLS], random word pieces, [SEP] (the same ids for every side;
the speed of a pass does not depend on which pieces they are)."""
import numpy as np
import torch

from torch_bench import embedding_accuracy
from torch_bench.context import agreement
from torch_bench.peer_report import AccuracyRow, PeerRow

# Timed calls per side at each length (before --reps-scale); shorter passes
# get more calls so that every length takes a similar share of the run.
REPS = {8: 200, 32: 100, 128: 40, 256: 24}
REPS_BERT_BASE = 12


class EncoderCase:
    def __init__(self, env, label, peers, lengths, folder=None, accuracy=False, reps=None):
        """peers: EncoderPeers; folder: the HF folder whose tokenizer makes the
        accuracy sentences' ids (None: random ids of spread lengths)."""
        self.env, self.label, self.peers, self.lengths = env, label, peers, lengths
        self.reps = reps or REPS
        generator = torch.Generator().manual_seed(4000)
        self.ids = {}
        for length in lengths:
            ids = torch.randint(1000, 30000, (length,), generator=generator)
            ids[0], ids[-1] = 101, 102  # [CLS] ... [SEP]
            self.ids[length] = ids.numpy().astype(np.int64)
        self.accuracy_ids = None
        if accuracy:
            sentences = embedding_accuracy.load_sentences()
            max_len = max(lengths)
            if folder is not None:
                self.accuracy_ids = embedding_accuracy.tokenize(folder, sentences, max_len)
                self.accuracy_source = f"{len(sentences)} sentences (bench/peer_sentences.txt)"
            else:
                self.accuracy_ids = embedding_accuracy.random_sequences(
                    len(sentences), max_len, np.random.default_rng(4001))
                self.accuracy_source = (f"{len(sentences)} random id sequences (no real "
                                        "vocabulary: a random MiniLM-shaped model)")

    def measure(self, threads):
        sides = self.peers.sides(threads)
        reference = next(s for s in sides if s.name == "torch f32")
        for length in self.lengths:
            ids = self.ids[length]
            expected = reference.hidden(ids)
            contenders = {s.name: s.bind(ids) for s in sides}
            reps = self.reps[length] if isinstance(self.reps, dict) else self.reps
            times = self.env.ctx.measure(contenders, warmup=2, reps=reps)
            rows = []
            for side in sides:
                diff, scale = agreement(side.hidden(ids), expected)
                rows.append(PeerRow(self.label, f"S={length}", threads, side.name, side.runtime,
                                    side.precision, times[side.name], max_abs_diff=diff,
                                    max_abs_ref=scale))
            self.env.add_rows(rows)
        if self.accuracy_ids is not None:  # once, at the first thread count (not timed)
            self.env.log(f"  embedding cosines over {self.accuracy_source}")
            for name, (worst, mean) in embedding_accuracy.cosines(
                    sides, reference, self.accuracy_ids).items():
                self.env.add_accuracy(AccuracyRow(self.label, name, worst, mean,
                                                  len(self.accuracy_ids)))
            self.accuracy_ids = None
