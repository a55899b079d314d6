"""The one timing protocol both sides go through, so normrt and PyTorch are
measured the same way: `warmup` untimed calls, then calls each timed alone
from Python (so each side's call overhead from Python is included: a few
microseconds of ctypes for normrt, the module dispatch for PyTorch). `prepare`, if given, runs before every
call (warm-up and timed) outside the clock: it puts the model back in the
state the measured call expects (a KV cache filled to position 32, a reset
encoder session).

On a shared machine the load drifts, so measure_rounds() interleaves the
contenders (normrt f32, normrt bf16, PyTorch f32, PyTorch bf16) in rounds:
each round gives every contender its warm-up and then reps/rounds timed
calls, and a contender's percentiles pool all its rounds. A burst of load
then hits every side alike instead of whichever ran at that moment.

Clocks: "wall" (perf_counter_ns, the latency a caller sees) or "cpu"
(thread_time_ns, the CPU time of the calling thread). Both sides compute in
the calling thread only (PyTorch with one intra-op thread, normrt sessions
with threads = 1), so on a quiet machine the two agree; on a shared machine
the CPU clock leaves out the time the thread was preempted by other
processes (cache pollution by them still counts). "process"
(process_time_ns, every thread of the process) is the CPU clock for peers
that compute in a worker thread of their own (CTranslate2): at one thread
the caller only waits, so the process's CPU time is the work's.

A contender whose call is a SelfTimed measures itself: each call returns a
list of durations in ns (e.g. the gaps between the tokens a generator
yields, when one call cannot isolate one step). It gets no warm-up calls
(its own samples come after the work that warms it, such as a prefill);
calls repeat until the round's share of samples is collected."""
import time
from dataclasses import dataclass


class SelfTimed:
    """Wraps sampler() -> [duration_ns, ...] (wall clock, measured inside)."""

    def __init__(self, sampler):
        self.sampler = sampler


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


CLOCKS = {"wall": time.perf_counter_ns, "cpu": time.thread_time_ns,
          "process": time.process_time_ns}


def measure_rounds(contenders, warmup, reps, rounds, clock="wall", settle_s=0.0):
    """contenders: {name: (call, prepare or None)} → {name: Timing}, `reps`
    samples each (split over `rounds` interleaved blocks, each block after
    its own `warmup` calls), read from CLOCKS[clock]. settle_s: an idle
    pause before each block, so that the previous contender's pool threads,
    which spin for a while after their last task (ONNX Runtime's pool,
    CTranslate2's OpenMP team), are asleep when the next block starts."""
    samples = {name: [] for name in contenders}
    clock = CLOCKS[clock]
    for r in range(rounds):
        block = reps // rounds + (1 if r < reps % rounds else 0)
        for name, (call, prepare) in contenders.items():
            if settle_s > 0:
                time.sleep(settle_s)
            if isinstance(call, SelfTimed):
                samples[name] += _self_timed_block(call, prepare, block)
                continue
            for n in range(warmup + block):
                if prepare is not None:
                    prepare()
                start = clock()
                call()
                if n >= warmup:
                    samples[name].append(clock() - start)
    return summarize(samples)


def _self_timed_block(call, prepare, block):
    taken = []
    while len(taken) < block:
        if prepare is not None:
            prepare()
        taken += call.sampler()
    return taken[:block]


def summarize(samples):
    """{name: [duration_ns, ...]} -> {name: Timing}."""
    result = {}
    for name, values in samples.items():
        values.sort()
        result[name] = Timing(percentile(values, 50) / 1e6, percentile(values, 90) / 1e6,
                              len(values))
    return result
