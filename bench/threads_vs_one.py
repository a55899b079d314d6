#!/usr/bin/env python3
"""A model on 2 threads against the same model on 1, per sequence length:
two sessions of one loaded model (threads = 1 and threads = N), the same
token ids, calls alternating in one process (the order flips every round),
so that a shared machine's load moves both alike. Prints each side's p50 and
the median of per-pair ratios 1-thread time ÷ N-thread time (> 1: the threads
pay). Needs N CPUs in the affinity mask (docs/runtime.md, "Threads").

    /work/venv/bin/python bench/threads_vs_one.py build/models/minilm.nrmt \
        --seq-lens 8,32,128 --threads 2 --rounds 200
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "torch_bench"))

from normrt_c import NormrtLibrary  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("--library", default=os.path.join(HERE, "..", "build", "release",
                                                          "runtime", "libnormrt.so"))
    parser.add_argument("--seq-lens", default="8,32,128")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--vocab-size", type=int, default=30522)
    args = parser.parse_args()
    cpus = len(os.sched_getaffinity(0))
    if cpus < args.threads:
        print(f"note: {args.threads} threads on {cpus} CPU(s) of the affinity mask")
    print(f"load average at start: {os.getloadavg()}")
    model = NormrtLibrary(args.library).load(args.model)
    one, many = model.session(1), model.session(args.threads)
    rng = np.random.default_rng(0)
    print(f"{'S':>5} {'1 thread p50 ms':>16} {f'{args.threads} threads p50 ms':>17} "
          f"{'1/N (pairs)':>12} {'1/N (p50s)':>11}")
    for s in (int(v) for v in args.seq_lens.split(",")):
        ids = rng.integers(1000, args.vocab_size, size=s, dtype=np.int32)
        ids[0], ids[-1] = 101, 102  # [CLS] ... [SEP]

        def timed(session):
            session.reset()
            session.set_input("input_ids", ids)
            start = time.perf_counter()
            session.run()
            return time.perf_counter() - start

        for _ in range(args.warmup):
            timed(one), timed(many)
        t1, tn, pairs = [], [], []
        for r in range(args.rounds):
            if r % 2:
                b, a = timed(many), timed(one)
            else:
                a, b = timed(one), timed(many)
            t1.append(a)
            tn.append(b)
            pairs.append(a / b)
        p1, pn = statistics.median(t1), statistics.median(tn)
        print(f"{s:>5} {p1 * 1e3:>16.3f} {pn * 1e3:>17.3f} {statistics.median(pairs):>12.3f} "
              f"{p1 / pn:>11.3f}", flush=True)
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
