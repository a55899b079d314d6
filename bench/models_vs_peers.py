#!/usr/bin/env python3
"""Whole models on normrt beside ONNX Runtime, CTranslate2 and PyTorch, in
one process, on the same token ids, rounds interleaved, per thread count
(docs/bench_models.md, "Peers").

Cases: all-MiniLM-L6-v2 at S = 8, 32, 128, 256 with every precision each
runtime offers and the sentence-embedding cosine of each against PyTorch
f32; a BERT-base-shaped encoder at S = 128; a Llama decoder token at context
512 and 2048; MiniLM batch throughput at B = 1, 8, 32 beside ONNX Runtime.
Prints p50/p90 per side and peer time ÷ normrt time (> 1: normrt faster).

    taskset -c 1 /work/venv/bin/python bench/models_vs_peers.py [--json out.json]
    taskset -c 0,1 /work/venv/bin/python bench/models_vs_peers.py --threads 1,2
    /work/venv/bin/python bench/models_vs_peers.py --cases minilm --reps-scale 0.05  # smoke
"""
import os

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_var] = "1"  # before torch loads its thread pools; set_num_threads raises it

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from types import SimpleNamespace  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)  # torch_bench
sys.path.insert(0, os.path.join(HERE, "..", "tools"))  # export_torch

import torch  # noqa: E402

from torch_bench import machine, peer_report  # noqa: E402
from torch_bench.context import Context  # noqa: E402

CASES = ["minilm", "bert-base", "llama", "batch"]
SETTLE_S = 0.3  # idle pause before each side's block at t > 1 threads


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default=",".join(CASES),
                        help="comma-separated subset of " + ",".join(CASES))
    parser.add_argument("--threads", default="1",
                        help="thread counts, each a pass over the cases' sides (e.g. 1,2); t "
                             "threads run pinned to t CPUs of the starting affinity mask")
    parser.add_argument("--precisions", choices=["all", "f32"], default="all",
                        help="all: every reduced-precision variant too (normrt bf16/int8, ORT "
                             "int8, CTranslate2 int8, PyTorch bf16); f32: float32 sides only")
    parser.add_argument("--reps-scale", type=float, default=1.0,
                        help="multiplies every case's warm-up and run counts (0.05: smoke run)")
    parser.add_argument("--rounds", type=int, default=4,
                        help="interleaved rounds: each side's runs are split into this many "
                             "blocks, alternating with the other sides'")
    parser.add_argument("--clock", choices=["wall", "process"], default="wall",
                        help="wall: latency as a caller sees it; process: the process's CPU "
                             "time (leaves out preemption on a loaded machine; meaningful at "
                             "one thread, where no side keeps spinning pool threads)")
    parser.add_argument("--int8-keep-f32", metavar="GLOBS",
                        help="normrt-convert --keep-f32 for the int8 and int8+bf16-fast models "
                             "(default: the converter's own list); the report names it. Every "
                             "pattern must name a matrix of each case's model (the converter "
                             "refuses one that names none), so a per-model list goes with "
                             "--cases for that model")
    parser.add_argument("--json", help="write every row, the cosines and the machine here")
    parser.add_argument("--markdown", help="also write the tables as Markdown to this file")
    parser.add_argument("--build-dir", default="build/release",
                        help="build tree with normrt-convert and libnormrt.so (relative to "
                             "the repository); built if missing")
    parser.add_argument("--workdir", default="build/bench_peers",
                        help="exports, conversions and model files (reused between runs "
                             "while their sources are unchanged)")
    parser.add_argument("--minilm-dir", default="build/models/all-MiniLM-L6-v2",
                        help="all-MiniLM-L6-v2 (scripts/fetch_minilm.sh); a random "
                             "MiniLM-shaped BERT if absent")
    args = parser.parse_args(argv)
    repo = os.path.abspath(os.path.join(HERE, ".."))
    for name in ("workdir", "minilm_dir"):
        value = getattr(args, name)
        if not os.path.isabs(value):
            setattr(args, name, os.path.join(repo, value))
    args.cases = [c for c in args.cases.split(",") if c]
    for case in args.cases:
        if case not in CASES:
            parser.error(f"unknown case '{case}', expected some of {','.join(CASES)}")
    try:
        args.threads = [int(t) for t in args.threads.split(",") if t]
    except ValueError:
        parser.error(f"--threads: expected comma-separated counts, found '{args.threads}'")
    if not args.threads or min(args.threads) < 1 or max(args.threads) > 64:
        parser.error("--threads: counts from 1 to 64")
    return args


class Env:
    """What the cases share: the normrt build and timing budget (Context),
    the report, the thread counts, the encoders converted so far."""

    def __init__(self, args):
        self.args, self.threads = args, args.threads
        self.ctx = Context(SimpleNamespace(build_dir=args.build_dir, workdir=args.workdir,
                                           dtypes=["f32"], reps_scale=args.reps_scale,
                                           rounds=args.rounds, clock=args.clock,
                                           no_torch_bf16=True,
                                           int8_keep_f32=args.int8_keep_f32))
        self.report = peer_report.Report()
        if args.int8_keep_f32:
            self.report.notes.append("normrt int8 and int8+bf16-fast: normrt-convert --keep-f32 "
                                     + args.int8_keep_f32)
        self._encoders = {}

    def log(self, text):
        print(text, flush=True)

    def add_rows(self, rows):
        """One group (same case, shape, threads) at once, so that its ratios are final."""
        self.report.rows += rows
        for row in rows:
            self.log("    " + " | ".join(peer_report.cells(self.report, row)[1:]))

    def add_accuracy(self, row):
        self.report.accuracy.append(row)
        self.log("    " + " | ".join(peer_report.accuracy_cells(row)[1:]))

    def minilm(self):
        """(folder, label, EncoderPeers, real) for all-MiniLM-L6-v2 or its stand-in."""
        if "minilm" not in self._encoders:
            from torch_bench import hf_models
            from torch_bench.encoder_peers import EncoderPeers
            real = os.path.exists(os.path.join(self.args.minilm_dir, "model.safetensors"))
            if real:
                folder, label = self.args.minilm_dir, "all-MiniLM-L6-v2"
            else:
                folder = hf_models.random_bert_folder(self.ctx.path("random_minilm_peers"),
                                                      hf_models.MINILM_SHAPE, 4000)
                label = "MiniLM shape (random)"
                self.report.notes.append(f"{self.args.minilm_dir} not found "
                                         "(scripts/fetch_minilm.sh): a random MiniLM-shaped "
                                         "BERT stands in")
            peers = EncoderPeers(self.ctx, folder, "minilm_peers", 256, self.args.precisions,
                                 self.log)
            self.report.notes += peers.skipped
            self._encoders["minilm"] = (folder, label, peers, real)
        return self._encoders["minilm"]


def make_case(env, name):
    from torch_bench import hf_models
    from torch_bench.encoder_peers import EncoderPeers
    from torch_bench.peer_batch_case import BatchCase
    from torch_bench.peer_encoder_case import REPS_BERT_BASE, EncoderCase
    from torch_bench.peer_llama_case import LlamaCase
    if name == "minilm":
        folder, label, peers, real = env.minilm()
        return EncoderCase(env, label, peers, [8, 32, 128, 256], folder if real else None,
                           accuracy=True)
    if name == "bert-base":
        folder = hf_models.random_bert_folder(env.ctx.path("bert_base_peers"),
                                              hf_models.BERT_BASE_SHAPE, 4100)
        peers = EncoderPeers(env.ctx, folder, "bert_base_peers", 128, env.args.precisions,
                             env.log)
        return EncoderCase(env, "BERT-base shape (random)", peers, [128], reps=REPS_BERT_BASE)
    if name == "llama":
        return LlamaCase(env, precisions=env.args.precisions)
    folder, label, peers, real = env.minilm()
    return BatchCase(env, f"{label}, 64 sentences", peers, folder if real else None, 256)


def versions():
    import ctranslate2
    import onnxruntime
    import transformers
    return {"python": platform.python_version(), "torch": torch.__version__,
            "transformers": transformers.__version__, "onnxruntime": onnxruntime.__version__,
            "ctranslate2": ctranslate2.__version__}


def main(argv):
    args = parse_args(argv)
    from transformers.utils import logging
    logging.set_verbosity_error()  # dropped poolers and unused weights are expected
    logging.disable_progress_bar()
    torch.set_num_interop_threads(1)
    pinning = machine.Pinning()
    env = Env(args)
    load_start = machine.load_average()
    print(f"cpu: {machine.cpu_summary()}", flush=True)
    print(f"affinity at start {pinning.start}; threads {args.threads}: " + ", ".join(
        f"{t} on CPUs {pinning.cpus_for(t)}" for t in args.threads))
    for note in pinning.warnings(args.threads):
        print("warning: " + note)
        env.report.notes.append(note)
    print(", ".join(f"{k} {v}" for k, v in versions().items()))
    print(f"normrt: {env.ctx.tree.dir}; {args.clock} clock; {args.rounds} interleaved rounds; "
          f"reps scale {args.reps_scale}; load average at start {load_start}", flush=True)
    start = time.time()
    for name in args.cases:
        print(f"[{name}]", flush=True)
        case = make_case(env, name)
        for threads in args.threads:
            if pinning.pin(threads) is None:
                continue
            torch.set_num_threads(threads)
            # Pools spin after their last task (ORT's for ~ms, CTranslate2's OpenMP team
            # longer): at t > 1 a spinning pool would take a CPU from the next side's block.
            env.ctx.settle_s = SETTLE_S if threads > 1 else 0.0
            load, foreign = machine.load_average(), machine.ForeignCpu()
            print(f"  {threads} thread(s), load average {load}", flush=True)
            case.measure(threads)
            busy = foreign.busy_cpus()
            note = (f"{name}, {threads} thread(s): load average {load} at start; other "
                    "processes kept " + ("?" if busy is None else f"{busy:.2f}") +
                    f" of {os.cpu_count()} CPUs busy meanwhile")
            print("  " + note, flush=True)
            env.report.notes.append(note)
    load_end = machine.load_average()
    elapsed = time.time() - start
    print()
    print(peer_report.text_tables(env.report))
    print(f"load average at start {load_start}, at end {load_end}; {elapsed:.0f} s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": {"cpu": machine.cpu_name(), "flags": machine.cpu_flags(),
                                   "affinity": pinning.start,
                                   "load_average": {"start": load_start, "end": load_end}},
                       "versions": versions(),
                       "args": {"cases": args.cases, "threads": args.threads,
                                "precisions": args.precisions, "reps_scale": args.reps_scale,
                                "rounds": args.rounds},
                       "seconds": elapsed, **env.report.to_json()}, f, indent=1)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(peer_report.markdown_tables(env.report) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
