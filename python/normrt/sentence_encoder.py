"""SentenceEncoder: texts to sentence embeddings, as sentence-transformers'
``SentenceTransformer.encode`` gives them for the same model.

A model file converted with ``normrt-convert --pooling mean`` holds the
pooling and the L2 normalization of a sentence-transformers model such as
all-MiniLM-L6-v2 (output ``embedding``); a file without pooling (output
``last_hidden_state``) is mean-pooled here, and normalized when
``normalize_embeddings`` is set.

Texts run in batches of ``batch_size`` sorted by length, longest first, as
sentence-transformers orders them (padded with an attention mask; the runtime
drops the padding before any work), when the model runs batches
(``Model.batch_refusal == ""``: the BERT-family encoders); otherwise one by
one. The tokenizer comes from the model's Hugging Face folder; once model
files store their tokenizer, ``tokenizer`` may be left out.
"""

from __future__ import annotations

import copy
import os
import warnings
from typing import Optional, Sequence, Union, overload

import numpy as np
import numpy.typing as npt

from ._batches import PaddedBatches
from ._normrt import InvalidArgumentError, Model, Session, Tokenizer

PathLike = Union[str, "os.PathLike[str]"]


def _tokenizer_of_model(model: Model) -> Tokenizer:
    """The tokenizer stored in the model file (normrt-convert --model or --tokenizer)."""
    stored = model.metadata_bytes("tokenizer")
    if not stored:
        raise InvalidArgumentError(
            f"{model.path}: the model file stores no tokenizer; pass tokenizer= the model's "
            "Hugging Face folder (with tokenizer.json or vocab.txt) or a normrt.Tokenizer, or "
            "convert with normrt-convert --model DIR to store one"
        )
    return Tokenizer.from_bytes(stored)


def _resolve_tokenizer(model: Model, tokenizer: Union[Tokenizer, PathLike, None]) -> Tokenizer:
    """A Tokenizer as given, one read from a Hugging Face folder, or (None)
    the one the model file stores."""
    if tokenizer is None:
        return _tokenizer_of_model(model)
    if isinstance(tokenizer, Tokenizer):
        return tokenizer
    return Tokenizer.from_folder(os.fspath(tokenizer))


def _the_token_input(model: Model) -> str:
    ids = [t.name for t in model.inputs if t.dtype == "i32"]
    if len(model.inputs) != 1 or len(ids) != 1 or model.inputs[0].shape != (-1,):
        described = ", ".join(f"{t.name} {t.dtype} {list(t.shape)}" for t in model.inputs)
        raise InvalidArgumentError(
            f"{model.path}: a sentence encoder takes one i32 input of shape [S] "
            f"(token ids); this model's inputs: {described}"
        )
    return ids[0]


class SentenceEncoder:
    """Texts → float32 sentence embeddings of shape (n, dim).

    model: a model file path or a loaded Model (a BERT-family encoder).
    tokenizer: a Tokenizer or the model's Hugging Face folder; None: the one
        stored in the model file (normrt-convert --model stores it).
    threads: intra-op threads of the encoder's Session.

    The tokenizer truncates at its max_length (for sentence-transformers
    folders, sentence_bert_config.json's max_seq_length); when that exceeds the
    model file's maximum sequence length, texts are truncated at the model's
    maximum instead, with a warning (convert with a larger --max-seq to match
    sentence-transformers on long texts).

    Thread safety: encode() may be called from several threads; the calls
    share one Session and run one at a time. For parallel encoding, give each
    thread its own SentenceEncoder over one shared Model.
    """

    def __init__(
        self,
        model: Union[Model, PathLike],
        tokenizer: Union[Tokenizer, PathLike, None] = None,
        *,
        threads: int = 1,
    ) -> None:
        self.model: Model = model if isinstance(model, Model) else Model(os.fspath(model))
        self._input = _the_token_input(self.model)
        names = [t.name for t in self.model.outputs]
        if "embedding" in names:
            self._output, self._pooled = "embedding", True
        elif "last_hidden_state" in names:
            self._output, self._pooled = "last_hidden_state", False
        else:
            raise InvalidArgumentError(
                f"{self.model.path}: no 'embedding' or 'last_hidden_state' output "
                f"(outputs: {', '.join(names)})"
            )
        self.dimension: int = int(
            next(t for t in self.model.outputs if t.name == self._output).shape[-1]
        )
        tokenizer = _resolve_tokenizer(self.model, tokenizer)
        self.tokenizer: Tokenizer = self._fit_to_model(tokenizer)
        self.session: Session = Session(self.model, threads=threads)
        self._batches = PaddedBatches(self.model, threads)

    def _fit_to_model(self, tokenizer: Tokenizer) -> Tokenizer:
        limit = self.model.max_sequence_length
        wanted = tokenizer.max_length
        if wanted != 0 and wanted <= limit:
            return tokenizer
        fitted = copy.copy(tokenizer)  # the caller's tokenizer keeps its max_length
        fitted.max_length = limit
        warnings.warn(
            f"{self.model.path} takes at most {limit} tokens; the tokenizer truncates at "
            f"{wanted or 'no limit'}: texts longer than {limit} tokens are truncated at {limit} "
            "(convert with --max-seq to match sentence-transformers on long texts)",
            stacklevel=3,
        )
        return fitted

    def encode_ids(
        self, ids: npt.ArrayLike, *, normalize_embeddings: bool = False
    ) -> npt.NDArray[np.float32]:
        """One sequence of token ids (special tokens included) → (dim,) float32."""
        out = self.session.run({self._input: ids})[self._output]
        if self._pooled:
            # pooled in the model (metadata "pooling": cls, mean or max, "_l2" when normalized)
            vector: npt.NDArray[np.float32] = out[0]
            if normalize_embeddings and not self.model.metadata("pooling").endswith("_l2"):
                vector = vector / max(float(np.linalg.norm(vector)), 1e-12)
            return vector
        vector = out.mean(axis=0, dtype=np.float32)
        if normalize_embeddings:
            vector /= max(float(np.linalg.norm(vector)), 1e-12)
        return vector

    @overload
    def encode(
        self,
        sentences: str,
        batch_size: int = ...,
        *,
        normalize_embeddings: bool = ...,
        show_progress_bar: Optional[bool] = ...,
    ) -> npt.NDArray[np.float32]: ...

    @overload
    def encode(
        self,
        sentences: Sequence[str],
        batch_size: int = ...,
        *,
        normalize_embeddings: bool = ...,
        show_progress_bar: Optional[bool] = ...,
    ) -> npt.NDArray[np.float32]: ...

    def encode(
        self,
        sentences: Union[str, Sequence[str]],
        batch_size: int = 32,
        *,
        normalize_embeddings: bool = False,
        show_progress_bar: Optional[bool] = None,
    ) -> npt.NDArray[np.float32]:
        """Embeds texts: (n, dim) float32 for a list, (dim,) for one string.

        As sentence-transformers' encode: batch_size must be a positive int
        (texts per run, sorted by length; each row within 1e-6 of the text's
        embedding at batch 1); normalize_embeddings L2-normalizes each row (a
        model whose pooling ends in L2 normalization is normalized already);
        show_progress_bar is accepted and ignored.
        """
        del show_progress_bar
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise InvalidArgumentError(f"batch_size must be a positive int, got {batch_size!r}")
        single = isinstance(sentences, str)
        texts: list[str] = [sentences] if isinstance(sentences, str) else list(sentences)
        for i, text in enumerate(texts):
            if not isinstance(text, str):
                raise InvalidArgumentError(
                    f"sentences[{i}] is a {type(text).__name__}, not a str"
                )
        result = np.empty((len(texts), self.dimension), dtype=np.float32)
        encoded = [self.tokenizer.encode(text).ids for text in texts]
        if self._batches.possible and batch_size > 1 and len(texts) > 1:
            self._encode_batches(encoded, batch_size, normalize_embeddings, result)
            return result
        for row, ids in enumerate(encoded):
            result[row] = self.encode_ids(ids, normalize_embeddings=normalize_embeddings)
        return result[0] if single else result

    def _encode_batches(
        self,
        encoded: list[npt.NDArray[np.int32]],
        batch_size: int,
        normalize_embeddings: bool,
        result: npt.NDArray[np.float32],
    ) -> None:
        """Fills result's rows: batches of batch_size, longest texts first."""
        session = self._batches.session(batch_size)
        for rows in self._batches.order([len(ids) for ids in encoded], batch_size):
            lengths = [len(encoded[i]) for i in rows]
            width = max(lengths)
            ids = self._batches.pad([encoded[i] for i in rows], width)  # [PAD] = 0
            mask = self._batches.mask(lengths, width)
            out = session.run({self._input: ids}, attention_mask=mask)[self._output]
            if self._pooled:
                result[rows] = out  # [B, dim], pooled and normalized in the model
                continue
            # last_hidden_state: the real tokens only, sequence after sequence.
            ends = np.cumsum(lengths)
            for r, i in enumerate(rows):
                vector = out[ends[r] - lengths[r]:ends[r]].mean(axis=0, dtype=np.float32)
                if normalize_embeddings:
                    vector /= max(float(np.linalg.norm(vector)), 1e-12)
                result[i] = vector

    def __repr__(self) -> str:
        return (
            f"SentenceEncoder({self.model.path!r}, dimension={self.dimension}, "
            f"max_length={self.tokenizer.max_length})"
        )
