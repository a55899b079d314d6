"""CTranslate2 as a peer: the Hugging Face folder converted once with
ctranslate2.converters.TransformersConverter (weights kept in float32), the
compute type chosen at load time ("float32", "int8", "int8_float32": int8
matrices quantized at load), intra_threads = threads, inter_threads = 1.

CTranslate2 computes in its own worker thread (the calling thread waits),
which is why the peer benchmark times by the wall clock only."""
import os

from torch_bench import stamp


def convert(folder, output):
    """folder (config.json, model.safetensors, a tokenizer) → a CTranslate2
    model directory (reused while the folder and the version are the same)."""
    import ctranslate2

    def build(out):
        from transformers.utils import logging
        logging.set_verbosity_error()
        ctranslate2.converters.TransformersConverter(folder).convert(out, force=True)

    key = {"source": [stamp.file_key(os.path.join(folder, name))
                      for name in ("config.json", "model.safetensors")],
           "ctranslate2": ctranslate2.__version__}
    return stamp.make(output, key, build)


def supported_compute_types():
    import ctranslate2
    return set(ctranslate2.get_supported_compute_types("cpu"))


def encoder(path, compute_type, threads):
    import ctranslate2
    return ctranslate2.Encoder(path, device="cpu", compute_type=compute_type,
                               intra_threads=threads, inter_threads=1)


def generator(path, compute_type, threads):
    import ctranslate2
    return ctranslate2.Generator(path, device="cpu", compute_type=compute_type,
                                 intra_threads=threads, inter_threads=1)
