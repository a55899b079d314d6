#!/usr/bin/env python3
"""Throughput of the single-machine options of docs/deploy.md: one Session
on 1 thread, one Session with 2 intra-op threads, two Sessions on two Python
threads (one Model), and two processes of one Session each (replicas without
a framework), on the request mix of
deploy/ray/test_ray_serve.py (2 texts a request from python/tests/sentences.py).
Options run interleaved, 3 rounds; the median of each is printed, in texts/s.

  build/python-venv/bin/python deploy/bench_options.py build/ray/minilm.nrmt \\
      build/models/all-MiniLM-L6-v2 [--requests 60]
"""
import argparse
import multiprocessing
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python" / "tests"))
import normrt  # noqa: E402
from sentences import SENTENCES  # noqa: E402


def texts_of(i):
    return [SENTENCES[(i + k) % len(SENTENCES)] for k in range(2)]


def one_session(model, tokenizer, threads, requests):
    encoder = normrt.SentenceEncoder(model, tokenizer=tokenizer, threads=threads)
    begin = time.perf_counter()
    for i in range(requests):
        encoder.encode(texts_of(i))
    return 2 * requests / (time.perf_counter() - begin)


def two_sessions(model, tokenizer, requests):
    encoders = [normrt.SentenceEncoder(model, tokenizer=tokenizer) for _ in range(2)]

    def work(which):
        for i in range(which, requests, 2):
            encoders[which].encode(texts_of(i))

    threads = [threading.Thread(target=work, args=(w,)) for w in range(2)]
    begin = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return 2 * requests / (time.perf_counter() - begin)


def process_worker(model_path, tokenizer_path, which, requests, barrier, queue):
    encoder = normrt.SentenceEncoder(model_path, tokenizer=tokenizer_path)
    encoder.encode(texts_of(0))
    barrier.wait()
    begin = time.perf_counter()
    for i in range(which, requests, 2):
        encoder.encode(texts_of(i))
    queue.put((begin, time.perf_counter()))


def two_processes(model_path, tokenizer_path, requests):
    """Two processes in this process's session (one scheduling group, as the
    threads): the time from the first start to the last end."""
    context = multiprocessing.get_context("spawn")
    barrier, queue = context.Barrier(2), context.Queue()
    workers = [context.Process(target=process_worker,
                               args=(model_path, tokenizer_path, w, requests, barrier, queue))
               for w in range(2)]
    for w in workers:
        w.start()
    spans = [queue.get() for _ in workers]
    for w in workers:
        w.join()
    return 2 * requests / (max(e for _, e in spans) - min(b for b, _ in spans))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("tokenizer")
    parser.add_argument("--requests", type=int, default=60)
    args = parser.parse_args()
    model = normrt.Model(args.model)
    tokenizer = normrt.Tokenizer.from_folder(args.tokenizer)
    options = {
        "1 session, 1 thread": lambda: one_session(model, tokenizer, 1, args.requests),
        "1 session, 2 intra-op threads": lambda: one_session(model, tokenizer, 2, args.requests),
        "2 sessions on 2 Python threads": lambda: two_sessions(model, tokenizer, args.requests),
        "2 processes, 1 session each": lambda: two_processes(args.model, args.tokenizer,
                                                             args.requests),
    }
    rates = {name: [] for name in options}
    for _ in range(3):
        for name, run in options.items():
            rates[name].append(run())
    base = statistics.median(rates["1 session, 1 thread"])
    for name, values in rates.items():
        median = statistics.median(values)
        print(f"{name:32s} {median:6.1f} texts/s  ({median / base:.2f}x)")


if __name__ == "__main__":
    main()
