#!/usr/bin/env python3
"""Batch-1 latency of whole models, normrt beside PyTorch on the same weights,
in one process (docs/bench_models.md).

For each architecture the PyTorch model is built (random weights of realistic
magnitude, or the real all-MiniLM-L6-v2), exported (tools/export_torch.py or
safetensors + config.json as the test fixture scripts do), converted with the
built normrt-convert (f32 and bf16 matrices), loaded through normrt's C API
(ctypes on libnormrt.so), checked against PyTorch on the same inputs, and
timed: warm-up, then N runs each timed alone; p50 and p90. Both sides run
single-threaded (torch.set_num_threads(1); normrt sessions with threads = 1).

Needs torch, numpy and transformers (HF LlamaForCausalLM and BertModel):
    taskset -c 1 /work/venv/bin/python bench/models_vs_torch.py [--build-dir build/release]
"""
import os

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_var] = "1"  # before torch loads its thread pools

import argparse  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)  # torch_bench
sys.path.insert(0, os.path.join(HERE, "..", "tools"))  # export_torch

import torch  # noqa: E402

from torch_bench import report  # noqa: E402
from torch_bench.context import Context  # noqa: E402
from torch_bench.machine import cpu_summary  # noqa: E402

CASES = ["rnn", "llama", "bert", "seq2seq"]


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build-dir", default="build/release",
                        help="build tree with normrt-convert and libnormrt.so (relative to "
                             "the repository); built if missing")
    parser.add_argument("--workdir", default="build/bench_models",
                        help="scratch folder for exported weights and model files")
    parser.add_argument("--cases", default=",".join(CASES),
                        help="comma-separated subset of " + ",".join(CASES))
    parser.add_argument("--dtypes", default="f32,bf16", help="normrt matrix dtypes")
    parser.add_argument("--reps-scale", type=float, default=1.0,
                        help="multiplies every case's warm-up and run counts (0.1: smoke run)")
    parser.add_argument("--rounds", type=int, default=4,
                        help="interleaved rounds: each side's runs are split into this many "
                             "blocks, alternating with the other sides'")
    parser.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                        help="wall: perf_counter (latency as a caller sees it); cpu: the "
                             "thread's CPU time (leaves out preemption on a shared machine)")
    parser.add_argument("--no-torch-bf16", action="store_true",
                        help="skip timing PyTorch with the model cast to bfloat16")
    parser.add_argument("--minilm-dir", default="build/models/all-MiniLM-L6-v2",
                        help="all-MiniLM-L6-v2 (scripts/fetch_minilm.sh); a random "
                             "MiniLM-shaped BERT if absent")
    parser.add_argument("--markdown", help="also write the table as Markdown to this file")
    args = parser.parse_args(argv)
    repo = os.path.abspath(os.path.join(HERE, ".."))
    for name in ("workdir", "minilm_dir"):
        value = getattr(args, name)
        if not os.path.isabs(value):
            setattr(args, name, os.path.join(repo, value))
    args.cases = [c for c in args.cases.split(",") if c]
    args.dtypes = [d for d in args.dtypes.split(",") if d]
    for case in args.cases:
        if case not in CASES:
            parser.error(f"unknown case '{case}', expected some of {','.join(CASES)}")
    for dtype in args.dtypes:
        if dtype not in ("f32", "bf16"):
            parser.error(f"unknown dtype '{dtype}', expected f32 or bf16")
    return args


def header(args, ctx):
    cpus = sorted(os.sched_getaffinity(0))
    lines = [
        f"cpu: {cpu_summary()}; affinity {cpus}" +
        ("" if len(cpus) == 1 else "  (not pinned: run under `taskset -c 1`)"),
        f"python {platform.python_version()} ({sys.executable}), torch {torch.__version__} "
        f"(threads {torch.get_num_threads()}, interop {torch.get_num_interop_threads()})",
        f"normrt: {ctx.tree.dir} (sessions single-threaded, fusion and norm folding on)",
        f"clock: {args.clock}; {args.rounds} interleaved rounds; reps scale {args.reps_scale}",
        "load average at start: %.2f %.2f %.2f" % os.getloadavg(),
    ]
    return "\n".join(lines)


def main(argv):
    args = parse_args(argv)
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    ctx = Context(args)
    ctx.on_row = lambda row: print("  " + " | ".join(report.cells(row)), flush=True)
    print(header(args, ctx), flush=True)
    start = time.time()
    for case in args.cases:
        print(f"[{case}]", flush=True)
        module = __import__(f"torch_bench.{case}_case", fromlist=["run"])
        if case == "bert":
            module.run(ctx, args.minilm_dir)
        else:
            module.run(ctx)
    print()
    print(report.text_table(ctx.rows))
    print("load average at end: %.2f %.2f %.2f; %.0f s" % (*os.getloadavg(), time.time() - start))
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(report.markdown_table(ctx.rows) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
