"""The one timing protocol both sides go through, so normrt and PyTorch are
measured the same way: `warmup` untimed calls, then `reps` calls each timed
alone with perf_counter_ns (a Python-level wall clock, so each side's call
overhead from Python is included: a few microseconds of ctypes for normrt,
the module dispatch for PyTorch). `prepare`, if given, runs before every
call (warm-up and timed) outside the clock: it puts the model back in the
state the measured call expects (a KV cache filled to position 32, a reset
encoder session)."""
import time
from dataclasses import dataclass


@dataclass
class Timing:
    p50_ms: float
    p90_ms: float
    reps: int


def percentile(sorted_values, q):
    """Nearest-rank percentile of an ascending list (q in [0, 100])."""
    if not sorted_values:
        raise ValueError("no samples")
    rank = max(1, -(-len(sorted_values) * q // 100))  # ceil(n·q/100), at least 1
    return sorted_values[int(rank) - 1]


def measure(call, warmup, reps, prepare=None):
    """Times `call()`; returns a Timing of `reps` samples."""
    for _ in range(warmup):
        if prepare is not None:
            prepare()
        call()
    samples = []
    clock = time.perf_counter_ns
    for _ in range(reps):
        if prepare is not None:
            prepare()
        start = clock()
        call()
        samples.append(clock() - start)
    samples.sort()
    return Timing(percentile(samples, 50) / 1e6, percentile(samples, 90) / 1e6, reps)
