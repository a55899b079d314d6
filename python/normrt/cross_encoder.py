"""CrossEncoder: scores of (query, passage) pairs, as sentence-transformers'
``CrossEncoder.predict`` gives them for the same model, and ``rank``.

The model is a sequence classifier converted from its folder
(``normrt-convert --model DIR``: BertForSequenceClassification,
RobertaForSequenceClassification, XLMRobertaForSequenceClassification), with
the tokenizer stored in the file or given here. A pair is joined by the
tokenizer's pair template; a BERT classifier's ``token_type_ids`` input gets
the segments (0 for the first text, 1 for the second).

Pairs run ``batch_size`` per run, longest first, padded with an attention
mask that the runtime uses to drop the padding before any work (each row
within 1e-6 of the pair's logits at ``batch_size=1``, which runs the pairs
one by one); a model that cannot batch (``Model.batch_refusal``) runs them
one by one whatever ``batch_size`` is.
"""

from __future__ import annotations

import copy
import os
import threading
from typing import Any, Callable, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

from ._batches import PaddedBatches
from ._normrt import Encoding, InvalidArgumentError, Model, Session, Tokenizer
from .sentence_encoder import PathLike, _resolve_tokenizer

Activation = Callable[[npt.NDArray[np.float32]], npt.NDArray[np.float32]]


def _sigmoid(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    return (1.0 / (1.0 + np.exp(-x.astype(np.float64)))).astype(np.float32)


def _identity(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    return x


class CrossEncoder:
    """Pairs of texts → float32 scores: (n,) for a one-label model, else (n, labels).

    model: a model file path or a loaded Model (a sequence classifier with an
        i32 input ``input_ids`` [S], optionally ``token_type_ids`` [S], and
        the output ``logits`` [1, labels]).
    tokenizer: a Tokenizer or the model's Hugging Face folder; None: the one
        stored in the model file.
    threads: intra-op threads of the Session.

    Thread safety: predict() may be called from several threads; the calls
    share one Session and run one at a time.
    """

    def __init__(
        self,
        model: Union[Model, PathLike],
        tokenizer: Union[Tokenizer, PathLike, None] = None,
        *,
        threads: int = 1,
    ) -> None:
        self.model: Model = model if isinstance(model, Model) else Model(os.fspath(model))
        inputs = {t.name: t for t in self.model.inputs}
        outputs = {t.name: t for t in self.model.outputs}
        if "input_ids" not in inputs or "logits" not in outputs or not set(inputs) <= {
            "input_ids",
            "token_type_ids",
        }:
            described = ", ".join(f"{t.name} {t.dtype} {list(t.shape)}" for t in self.model.inputs)
            raise InvalidArgumentError(
                f"{self.model.path}: a cross-encoder takes input_ids (and token_type_ids) and "
                f"gives logits; this model's inputs: {described}; outputs: "
                f"{', '.join(outputs)}"
            )
        self._types = "token_type_ids" in inputs
        self.num_labels: int = int(outputs["logits"].shape[-1])
        tokenizer = _resolve_tokenizer(self.model, tokenizer)
        limit = self.model.max_sequence_length
        if tokenizer.max_length == 0 or tokenizer.max_length > limit:
            tokenizer = copy.copy(tokenizer)  # the caller's keeps its max_length
            tokenizer.max_length = limit
        self.tokenizer: Tokenizer = tokenizer
        self.session: Session = Session(self.model, threads=threads)
        self._batches = PaddedBatches(self.model, threads)
        self._lock = threading.Lock()  # self.session runs one pair at a time

    def _encode(self, first: str, second: Optional[str]) -> Encoding:
        return (
            self.tokenizer.encode(first) if second is None
            else self.tokenizer.encode_pair(first, second)
        )

    def _run_one(self, encoding: Encoding) -> npt.NDArray[np.float32]:
        """Logits [1, labels] of one pair (no padding, no mask)."""
        feed = {"input_ids": np.asarray(encoding.ids, dtype=np.int32)}
        if self._types:
            feed["token_type_ids"] = np.asarray(encoding.type_ids, dtype=np.int32)
        logits: npt.NDArray[np.float32] = self.session.run(feed)["logits"]
        return logits

    def _run_batch(self, session: Session, encodings: list[Encoding]) -> npt.NDArray[np.float32]:
        """Logits [len(encodings), labels]: one run, rows right-padded."""
        lengths = [len(encoding) for encoding in encodings]
        width = max(lengths)
        feed = {"input_ids": self._batches.pad([e.ids for e in encodings], width)}
        if self._types:
            feed["token_type_ids"] = self._batches.pad([e.type_ids for e in encodings], width)
        mask = self._batches.mask(lengths, width)
        logits: npt.NDArray[np.float32] = session.run(feed, attention_mask=mask)["logits"]
        return logits

    def _logits(
        self, encodings: list[Encoding], batch_size: int
    ) -> npt.NDArray[np.float32]:
        """Logits [n, labels] in the pairs' order."""
        result = np.empty((len(encodings), self.num_labels), dtype=np.float32)
        if not self._batches.possible or batch_size == 1 or len(encodings) == 1:
            with self._lock:
                for i, encoding in enumerate(encodings):
                    result[i] = self._run_one(encoding)[0]
            return result
        session = self._batches.session(batch_size)
        with self._lock:  # a batch session serves one predict() at a time too
            for rows in self._batches.order([len(e) for e in encodings], batch_size):
                result[rows] = self._run_batch(session, [encodings[i] for i in rows])
        return result

    def predict(
        self,
        sentences: Union[Sequence[Sequence[str]], Sequence[str]],
        batch_size: int = 32,
        *,
        activation_fn: Optional[Activation] = None,
        apply_softmax: bool = False,
        show_progress_bar: Optional[bool] = None,
    ) -> npt.NDArray[np.float32]:
        """Scores pairs [(a, b), ...] (or one pair (a, b)).

        As sentence-transformers: activation_fn None applies a sigmoid to a
        one-label model and nothing otherwise; apply_softmax normalizes the
        labels of a multi-label model; one pair gives a scalar-shaped result.
        """
        del show_progress_bar
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise InvalidArgumentError(f"batch_size must be a positive int, got {batch_size!r}")
        single = len(sentences) == 2 and all(isinstance(s, str) for s in sentences)
        pairs: list[Any] = [sentences] if single else list(sentences)
        encodings = []
        for i, pair in enumerate(pairs):
            if isinstance(pair, str) or len(pair) not in (1, 2) or not all(
                isinstance(p, str) for p in pair
            ):
                raise InvalidArgumentError(
                    f"sentences[{i}] must be a (text, text) pair of str, got {pair!r}"
                )
            first: str = pair[0]
            second: Optional[str] = pair[1] if len(pair) == 2 else None
            encodings.append(self._encode(first, second))
        scores = self._logits(encodings, batch_size)
        activation = activation_fn or (_sigmoid if self.num_labels == 1 else _identity)
        scores = activation(scores)
        if apply_softmax and self.num_labels > 1:
            shifted = np.exp(scores - scores.max(axis=1, keepdims=True))
            scores = (shifted / shifted.sum(axis=1, keepdims=True)).astype(np.float32)
        if self.num_labels == 1:
            scores = scores[:, 0]
        return scores[0] if single else scores

    def rank(
        self,
        query: str,
        documents: Sequence[str],
        top_k: Optional[int] = None,
        *,
        return_documents: bool = False,
        activation_fn: Optional[Activation] = None,
    ) -> list[dict[str, Any]]:
        """The documents by score, best first: [{"corpus_id", "score"(, "text")}],
        as sentence-transformers' CrossEncoder.rank (a one-label model)."""
        if self.num_labels != 1:
            raise InvalidArgumentError(
                f"rank needs a one-label model (a reranker); this one has {self.num_labels}"
            )
        scores = self.predict([(query, d) for d in documents], activation_fn=activation_fn)
        order = sorted(range(len(documents)), key=lambda i: -float(scores[i]))
        ranked: list[dict[str, Any]] = []
        for i in order[:top_k]:
            entry: dict[str, Any] = {"corpus_id": i, "score": float(scores[i])}
            if return_documents:
                entry["text"] = documents[i]
            ranked.append(entry)
        return ranked

    def __repr__(self) -> str:
        return (
            f"CrossEncoder({self.model.path!r}, num_labels={self.num_labels}, "
            f"max_length={self.tokenizer.max_length})"
        )
