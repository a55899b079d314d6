"""Batch throughput (sentences/s) on MiniLM: the first 64 sentences of
bench/peer_sentences.txt (3 to 147 tokens), sorted by length as
sentence-transformers' encode() sorts them, in batches of B; one timed call
encodes all 64.

- ONNX Runtime f32: B sentences per run, padded with [PAD] (id 0) to the
  longest of the batch, attention_mask 0 on the padding: what a user of the
  exported model does.
- normrt f32: a model that runs batches (normrt_model_batch_refusal() is
  "", docs/runtime.md "Batches") gets the same padded batches: input_ids
  [B, S] through normrt_session_set_input_typed and the mask through
  normrt_session_set_attention_mask, in a session of max_batch B. Otherwise
  (an older library or model) the 64 sentences run as a loop of single runs
  (reset, set_input, run), the same for every B, labelled "loop of single
  runs"."""
import numpy as np

from torch_bench import embedding_accuracy, onnx_peer
from torch_bench.peer_report import PeerRow

BATCHES = [1, 8, 32]
SENTENCES = 64
REPS = 8
PAD_ID = 0


def pad(batch):
    """[ids [S_i]] → (ids [B, S_max], mask [B, S_max]), int64."""
    width = max(len(ids) for ids in batch)
    ids = np.full((len(batch), width), PAD_ID, dtype=np.int64)
    mask = np.zeros((len(batch), width), dtype=np.int64)
    for row, seq in enumerate(batch):
        ids[row, :len(seq)] = seq
        mask[row, :len(seq)] = 1
    return ids, mask


def takes_batches(model):
    return model.batch_refusal() == ""


def batches_of(sequences, size):
    return [pad(sequences[i:i + size]) for i in range(0, len(sequences), size)]


class BatchCase:
    def __init__(self, env, label, peers, folder, max_len):
        self.env, self.label, self.peers = env, label, peers
        sentences = embedding_accuracy.load_sentences()[:SENTENCES]
        if folder is not None:
            self.sequences = embedding_accuracy.tokenize(folder, sentences, max_len)
        else:
            self.sequences = embedding_accuracy.random_sequences(
                len(sentences), max_len, np.random.default_rng(4002))
        self.sequences.sort(key=len, reverse=True)  # less padding per batch
        self.batched_normrt = takes_batches(peers.normrt["f32"])
        lengths = [len(s) for s in self.sequences]
        env.log(f"  {len(self.sequences)} sentences, {min(lengths)}–{max(lengths)} tokens "
                f"(mean {np.mean(lengths):.0f}); normrt "
                + ("takes [B, S] batches with a mask" if self.batched_normrt
                   else "has no batch input: a loop of single runs"))

    def _ort(self, session, batches):
        feeds = [onnx_peer.bert_feeds(ids, mask) for ids, mask in batches]

        def call():
            for f in feeds:
                session.run(None, f)

        return call

    def _normrt_loop(self, session):
        inputs = [np.ascontiguousarray(s, dtype=np.int32) for s in self.sequences]

        def call():
            for ids in inputs:
                session.reset()
                session.set_input("input_ids", ids)
                session.run()

        return call

    def _normrt_batched(self, session, batches):
        inputs = [(np.ascontiguousarray(ids, np.int32), np.ascontiguousarray(mask, np.int32))
                  for ids, mask in batches]

        def call():
            for ids, mask in inputs:
                session.set_input_shaped("input_ids", ids)
                session.set_attention_mask(mask)
                session.run()

        return call

    def measure(self, threads):
        ort = onnx_peer.session(self.peers.onnx["f32"], threads)
        normrt = self.peers.normrt["f32"].session(threads)
        for size in BATCHES:
            batches = batches_of(self.sequences, size)
            if self.batched_normrt:
                batched = self.peers.normrt["f32"].session(threads, max_batch=size)
                normrt_name, normrt_call = "normrt f32 batched", \
                    self._normrt_batched(batched, batches)
            else:
                normrt_name, normrt_call = "normrt f32 loop of single runs", \
                    self._normrt_loop(normrt)
            contenders = {normrt_name: (normrt_call, None),
                          "ORT f32 batched (padded)": (self._ort(ort, batches), None)}
            times = self.env.ctx.measure(contenders, warmup=1, reps=REPS)
            self.env.add_rows([PeerRow(self.label, f"B={size}", threads, name, runtime, "f32",
                                       times[name], items=len(self.sequences))
                               for name, runtime in ((normrt_name, "normrt"),
                                                     ("ORT f32 batched (padded)",
                                                      "onnxruntime"))])
