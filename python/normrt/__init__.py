"""normrt: a CPU inference runtime for batch-1 Transformer and RNN models.

    import normrt
    encoder = normrt.SentenceEncoder("minilm.nrmt", tokenizer="all-MiniLM-L6-v2/")
    embeddings = encoder.encode(["A sentence.", "Another one."])   # float32 (2, 384)

    model = normrt.Model("model.nrmt")                  # once; shareable by threads
    session = normrt.Session(model)                     # one per thread
    outputs = session.run({"input_ids": ids})           # numpy in, numpy out (copies)

Errors are normrt.Error subclasses carrying normrt's message.
"""

from ._normrt import (
    Encoding,
    Error,
    InternalError,
    InvalidArgumentError,
    LoadError,
    Model,
    OutOfMemoryError,
    RunError,
    Session,
    TensorInfo,
    Tokenizer,
    max_session_threads,
    version,
)
from .cross_encoder import CrossEncoder
from .sentence_encoder import SentenceEncoder

__version__: str = version()

for _error in (Error, InvalidArgumentError, LoadError, RunError, OutOfMemoryError, InternalError):
    _error.__module__ = __name__  # normrt.LoadError in tracebacks, not normrt._normrt.LoadError
del _error

__all__ = [
    "CrossEncoder",
    "Encoding",
    "Error",
    "InternalError",
    "InvalidArgumentError",
    "LoadError",
    "Model",
    "OutOfMemoryError",
    "RunError",
    "SentenceEncoder",
    "Session",
    "TensorInfo",
    "Tokenizer",
    "__version__",
    "max_session_threads",
    "version",
]
