"""Texts of different lengths run as padded batches of one model, for
SentenceEncoder and CrossEncoder: a Session per batch size (made on first
use, shared by threads), the rows cut into batches longest first (as
sentence-transformers orders them, so that a batch pads little), and the
right-padded arrays with their attention mask. The runtime drops the padding
before any work, so a batch's rows are the rows of separate runs."""
from __future__ import annotations

import threading
from typing import Iterator, Sequence

import numpy as np
import numpy.typing as npt

from ._normrt import Model, Session


class PaddedBatches:
    def __init__(self, model: Model, threads: int) -> None:
        self._model = model
        self._threads = threads
        self.possible: bool = model.batch_refusal == ""  # else one sequence per run
        self._sessions: dict[int, Session] = {}  # batch_size -> Session
        self._lock = threading.Lock()

    def session(self, batch_size: int) -> Session:
        with self._lock:
            session = self._sessions.get(batch_size)
            if session is None:
                session = Session(self._model, threads=self._threads, max_batch=batch_size)
                self._sessions[batch_size] = session
            return session

    @staticmethod
    def order(lengths: Sequence[int], batch_size: int) -> Iterator[list[int]]:
        """The row indices of each batch, longest rows first."""
        order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
        for first in range(0, len(order), batch_size):
            yield order[first:first + batch_size]

    @staticmethod
    def pad(rows: Sequence[npt.NDArray[np.int32]], width: int) -> npt.NDArray[np.int32]:
        """[len(rows), width] int32, each row right-padded with 0 (masked out)."""
        out = np.zeros((len(rows), width), dtype=np.int32)
        for r, row in enumerate(rows):
            out[r, :len(row)] = row
        return out

    @staticmethod
    def mask(lengths: Sequence[int], width: int) -> npt.NDArray[np.int32]:
        """The attention mask of rows of these lengths padded to width."""
        return (np.arange(width)[None, :] < np.asarray(lengths)[:, None]).astype(np.int32)
