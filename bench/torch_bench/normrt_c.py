"""normrt's C API (include/normrt/normrt.h) through ctypes, for the benchmark.

    lib = NormrtLibrary("build/release/runtime/libnormrt.so")
    model = lib.load("model.nrmt")                  # options: defaults (fuse, fold)
    model.input_names()                             # ["input_ids"]
    model.input_info(0)                             # name, dtype, declared shape (-1: S)
    session = model.session()                       # threads 0: the calling thread only
    session2 = model.session(threads=2)             # intra-op pool of 2 threads
    session.set_input("x", array)                   # borrowed until run() returns
    session.set_input_shaped("input_ids", ids_2d)   # with its shape (normrt_session_set_input_typed)
    session3 = model.session(max_batch=32)          # [B, S] batches (model.batch_refusal() == "")
    session3.set_attention_mask(mask_2d)            # right padding
    session.run()
    y = session.output("h_seq")                     # a numpy copy

Errors raise NormrtError with normrt_last_error()'s message. Inputs are
numpy arrays (C-contiguous, float32 or int32; int64 ids through
set_input_shaped); the session keeps a reference to each until the next
set_input of that name, so the borrowed memory outlives run(). Option and
info structs carry `struct_size` first (the header's ABI rule).
"""
import ctypes

import numpy as np

MAX_RANK = 4  # NORMRT_MAX_RANK
_OK = 0


class NormrtError(RuntimeError):
    pass


class _ModelOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t), ("isa", ctypes.c_char_p),
                ("fuse", ctypes.c_int), ("fold_norm_affine", ctypes.c_int),
                ("bf16_activations", ctypes.c_int)]


class _SessionOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t), ("threads", ctypes.c_size_t),
                ("profile", ctypes.c_int), ("max_batch", ctypes.c_size_t)]


class _TensorInfo(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t), ("name", ctypes.c_char_p),
                ("dtype", ctypes.c_int), ("rank", ctypes.c_size_t),
                ("shape", ctypes.c_int64 * MAX_RANK), ("max_sequence_length", ctypes.c_size_t)]


# normrt_dtype: the element types set_input_shaped passes.
_DTYPES = {np.dtype(np.float32): 1, np.dtype(np.int32): 2, np.dtype(np.int64): 3}
_DTYPE_NAMES = {1: "f32", 2: "i32", 3: "i64"}


class NormrtLibrary:
    def __init__(self, path):
        lib = ctypes.CDLL(path)
        vp, sz, cp = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p
        lib.normrt_last_error.restype = cp
        lib.normrt_model_load.argtypes = [cp, ctypes.POINTER(_ModelOptions), ctypes.POINTER(vp)]
        lib.normrt_model_destroy.argtypes = [vp]
        lib.normrt_session_create.argtypes = [vp, ctypes.POINTER(_SessionOptions),
                                              ctypes.POINTER(vp)]
        lib.normrt_session_destroy.argtypes = [vp]
        lib.normrt_session_set_input.argtypes = [vp, cp, vp, sz]
        lib.normrt_session_run.argtypes = [vp]
        lib.normrt_session_output.argtypes = [vp, cp, ctypes.POINTER(vp),
                                              ctypes.POINTER(sz), ctypes.POINTER(sz)]
        lib.normrt_session_reset.argtypes = [vp]
        lib.normrt_session_position.argtypes = [vp]
        lib.normrt_session_position.restype = sz
        lib.normrt_session_copy_state.argtypes = [vp, vp]
        lib.normrt_model_input_count.argtypes = [vp]
        lib.normrt_model_input_count.restype = sz
        lib.normrt_model_input_name.argtypes = [vp, sz]
        lib.normrt_model_input_name.restype = cp
        lib.normrt_model_input_info.argtypes = [vp, sz, ctypes.POINTER(_TensorInfo)]
        lib.normrt_session_set_input_typed.argtypes = [vp, cp, ctypes.c_int, vp,
                                                       ctypes.POINTER(sz), sz]
        # Batches (a library without them: batch_refusal() says so).
        self.has_batches = hasattr(lib, "normrt_model_batch_refusal")
        if self.has_batches:
            lib.normrt_model_batch_refusal.argtypes = [vp]
            lib.normrt_model_batch_refusal.restype = cp
            lib.normrt_session_set_attention_mask.argtypes = [vp, ctypes.c_int, vp,
                                                              ctypes.POINTER(sz), sz]
        self.lib, self.path = lib, path

    def check(self, status, what):
        if status != _OK:
            raise NormrtError(f"{what}: {self.lib.normrt_last_error().decode()}")

    def load(self, path, fuse=True, fold_norm_affine=True, bf16_activations=False):
        options = _ModelOptions(ctypes.sizeof(_ModelOptions), None, int(fuse),
                                int(fold_norm_affine), int(bf16_activations))
        handle = ctypes.c_void_p()
        self.check(self.lib.normrt_model_load(str(path).encode(), ctypes.byref(options),
                                              ctypes.byref(handle)), f"load {path}")
        return NormrtModel(self, handle)


class NormrtModel:
    def __init__(self, library, handle):
        self.library, self.handle = library, handle

    def input_names(self):
        lib = self.library.lib
        return [lib.normrt_model_input_name(self.handle, i).decode()
                for i in range(lib.normrt_model_input_count(self.handle))]

    def input_info(self, index):
        """{"name", "dtype" ("f32" | "i32"), "shape" (-1 where the dimension is S)}."""
        info = _TensorInfo(ctypes.sizeof(_TensorInfo))
        lib = self.library
        lib.check(lib.lib.normrt_model_input_info(self.handle, index, ctypes.byref(info)),
                  f"input_info {index}")
        return {"name": info.name.decode(), "dtype": _DTYPE_NAMES.get(info.dtype, "?"),
                "shape": [info.shape[i] for i in range(info.rank)]}

    def batch_refusal(self):
        """"" if the model runs [B, S] batches (normrt_model_batch_refusal); else why not."""
        if not self.library.has_batches:
            return "this libnormrt has no batches"
        return self.library.lib.normrt_model_batch_refusal(self.handle).decode()

    def session(self, threads=1, max_batch=1):
        """threads: intra-op threads (1: the calling thread only; 0: the CPUs of
        the process's affinity mask); max_batch: the most sequences one run takes."""
        options = _SessionOptions(ctypes.sizeof(_SessionOptions), threads, 0, max_batch)
        handle = ctypes.c_void_p()
        lib = self.library
        lib.check(lib.lib.normrt_session_create(self.handle, ctypes.byref(options),
                                                ctypes.byref(handle)), "session_create")
        return NormrtSession(lib, handle)

    def __del__(self):
        if self.handle:
            self.library.lib.normrt_model_destroy(self.handle)
            self.handle = None


class NormrtSession:
    def __init__(self, library, handle):
        self.library, self.handle = library, handle
        self.lib = library.lib
        self._borrowed = {}  # name -> array the session reads at run()
        self._names = {}     # name -> encoded bytes, made once

    def _name(self, name):
        encoded = self._names.get(name)
        if encoded is None:
            encoded = self._names[name] = name.encode()
        return encoded

    def set_input(self, name, array):
        """array: C-contiguous float32/int32; its byte size fixes S."""
        if not array.flags["C_CONTIGUOUS"]:
            raise ValueError(f"input '{name}' must be C-contiguous")
        self._borrowed[name] = array
        self.library.check(
            self.lib.normrt_session_set_input(self.handle, self._name(name),
                                              array.ctypes.data, array.nbytes),
            f"set_input {name}")

    def set_input_shaped(self, name, array):
        """An input with its shape and element type (normrt_session_set_input_typed):
        e.g. [B, S] ids for a model that declares batch inputs."""
        if not array.flags["C_CONTIGUOUS"]:
            raise ValueError(f"input '{name}' must be C-contiguous")
        dtype = _DTYPES.get(array.dtype)
        if dtype is None:
            raise ValueError(f"input '{name}': dtype {array.dtype} is not float32/int32/int64")
        self._borrowed[name] = array
        shape = (ctypes.c_size_t * array.ndim)(*array.shape)
        self.library.check(
            self.lib.normrt_session_set_input_typed(self.handle, self._name(name), dtype,
                                                    array.ctypes.data, shape, array.ndim),
            f"set_input_typed {name}")

    def set_attention_mask(self, mask):
        """mask [B, S] int32/int64 of 0/1, right padding (copied at the call)."""
        mask = np.ascontiguousarray(mask)
        dtype = _DTYPES.get(mask.dtype)
        shape = (ctypes.c_size_t * mask.ndim)(*mask.shape)
        self.library.check(
            self.lib.normrt_session_set_attention_mask(self.handle, dtype, mask.ctypes.data,
                                                       shape, mask.ndim),
            "set_attention_mask")

    def run(self):
        self.library.check(self.lib.normrt_session_run(self.handle), "run")

    def output(self, name, dtype=np.float32):
        """A copy of output `name` (valid data only until the next run)."""
        data = ctypes.c_void_p()
        shape = (ctypes.c_size_t * MAX_RANK)()
        rank = ctypes.c_size_t()
        self.library.check(
            self.lib.normrt_session_output(self.handle, self._name(name), ctypes.byref(data),
                                           shape, ctypes.byref(rank)), f"output {name}")
        dims = tuple(shape[i] for i in range(rank.value))
        count = int(np.prod(dims)) if dims else 1
        buffer = (ctypes.c_char * (count * np.dtype(dtype).itemsize)).from_address(data.value)
        return np.frombuffer(buffer, dtype=dtype).reshape(dims).copy()

    def reset(self):
        self.lib.normrt_session_reset(self.handle)

    def position(self):
        return self.lib.normrt_session_position(self.handle)

    def copy_state_from(self, source):
        """This session's state and position become a copy of `source`'s (a
        session of the same model): a filled KV cache without a new prefill."""
        self.library.check(self.lib.normrt_session_copy_state(self.handle, source.handle),
                           "copy_state")

    def __del__(self):
        if self.handle:
            self.lib.normrt_session_destroy(self.handle)
            self.handle = None
