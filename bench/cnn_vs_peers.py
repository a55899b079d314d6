#!/usr/bin/env python3
"""ConvPool-CNN-C at batch 1 (32×32×3, one thread): normrt beside PyTorch and
ONNX Runtime on the same weights, in one process, interleaved (docs/cnn.md).

For each norm (none, rms_norm, layer_norm, prms_norm p = 1/8) the script
builds the network as a PyTorch module (float32; the spatial LayerNorm is
F.group_norm with one group per channel, PyTorch's own kernel for it; the
spatial RMSNorm and pRMSNorm are written with tensor ops, there being no
module for them), random weights of realistic magnitude, exports the
state_dict (safetensors) + normrt config and converts it with the built
normrt-convert (conv_algorithm winograd, the default, and direct), exports
the same module to ONNX (opset 17) for ONNX Runtime
(CPUExecutionProvider, all graph optimizations, one intra-op thread), checks
that they agree on one input, then times them in interleaved rounds
(as bench/torch_bench/timing.py; p10 and p50): normrt fused, unfused and fused with direct
convolutions, PyTorch, ORT.

    taskset -c 1 /work/venv/bin/python bench/cnn_vs_peers.py [--build-dir build/release]
        [--norms none,rms_norm,layer_norm,prms_norm] [--reps 300] [--rounds 6] [--clock wall|cpu]
"""
import os

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_var] = "1"  # before torch and onnxruntime load their thread pools

import argparse  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from torch_bench.normrt_c import NormrtLibrary  # noqa: E402
from torch_bench.timing import CLOCKS, percentile  # noqa: E402

EPS, SLOPE, P = 1e-6, 0.1, 1.0 / 8  # p: ⌊p·10⌋ ≥ 1 for the dense norm
LAYERS = [(96, 3, 1, False), (96, 3, 1, False), (96, 3, 1, True),
          (192, 3, 1, False), (192, 3, 1, False), (192, 3, 1, True),
          (192, 3, 0, False), (192, 1, 0, False), (192, 1, 0, False)]


class SpatialNorm(nn.Module):
    """Per-channel norm over H×W with gain then bias (the RMSNorm authors'
    RMSNormLayer on 4-D input); LayerNorm through F.group_norm."""

    def __init__(self, kind, channels):
        super().__init__()
        self.kind, self.channels = kind, channels
        self.weight = nn.Parameter(torch.ones(channels))
        self.bias = nn.Parameter(torch.zeros(channels))

    def forward(self, x):
        if self.kind == "layer_norm":
            return F.group_norm(x, self.channels, self.weight, self.bias, EPS)
        if self.kind == "rms_norm":
            ms = x.pow(2).mean(dim=(2, 3), keepdim=True)
        else:  # prms_norm: the first int(H·W·p) values of each plane
            flat = x.flatten(2)
            k = int(flat.shape[-1] * P)
            ms = flat[..., :k].pow(2).mean(dim=-1)[..., None, None]
        return x * torch.rsqrt(ms + EPS) * self.weight[:, None, None] + self.bias[:, None, None]


class RowNorm(nn.Module):
    def __init__(self, kind, n):
        super().__init__()
        self.kind = kind
        self.weight = nn.Parameter(torch.ones(n))
        self.bias = nn.Parameter(torch.zeros(n))

    def forward(self, x):
        if self.kind == "layer_norm":
            return F.layer_norm(x, x.shape[-1:], self.weight, self.bias, EPS)
        k = x.shape[-1] if self.kind == "rms_norm" else int(x.shape[-1] * P)
        ms = x[..., :k].pow(2).mean(dim=-1, keepdim=True)
        return x * torch.rsqrt(ms + EPS) * self.weight + self.bias


class ConvPoolCnnC(nn.Module):
    def __init__(self, kind):
        super().__init__()
        self.kind = kind
        normalized = kind != "none"
        convs, norms, channels = [], [], 3
        for out, k, pad, _ in LAYERS:
            convs.append(nn.Conv2d(channels, out, k, padding=pad, bias=not normalized))
            if normalized:
                norms.append(SpatialNorm(kind, out))
            channels = out
        self.conv = nn.ModuleList(convs)
        self.norm = nn.ModuleList(norms)
        self.dense = nn.Linear(192, 10, bias=not normalized)
        if normalized:
            self.dense_norm = RowNorm(kind, 10)

    def forward(self, x):
        for i, (_, _, _, pool) in enumerate(LAYERS):
            x = self.conv[i](x)
            if self.kind != "none":
                x = self.norm[i](x)
            x = F.leaky_relu(x, SLOPE)
            if pool:
                x = F.max_pool2d(x, 2)
        x = self.dense(x.mean(dim=(2, 3)))
        return self.dense_norm(x) if self.kind != "none" else x


def randomize(model, generator):
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("weight") and p.dim() == 4:
                p.normal_(0.0, (2.0 / p[0].numel()) ** 0.5, generator=generator)
            elif name.startswith("dense.weight"):
                p.normal_(0.0, p.shape[1] ** -0.5, generator=generator)
            elif name.endswith("weight"):  # norm gains
                p.normal_(1.0, 0.2, generator=generator)
            else:
                p.normal_(0.0, 0.1, generator=generator)


def export_normrt(model, kind, workdir, convert, algorithm):
    from safetensors.torch import save_file
    prefix = os.path.join(workdir, f"cnn_{kind}")
    save_file({k: v.contiguous() for k, v in model.state_dict().items()}, prefix + ".safetensors")
    config = {"architecture": "convpool_cnn_c", "norm": kind, "eps": EPS, "negative_slope": SLOPE,
              "conv_algorithm": algorithm}
    if kind == "prms_norm":
        config["p"] = P
    with open(f"{prefix}.{algorithm}.json", "w") as f:
        json.dump(config, f)
    output = f"{prefix}.{algorithm}.nrmt"
    subprocess.run([convert, "--config", f"{prefix}.{algorithm}.json", "--weights",
                    prefix + ".safetensors", "--output", output], check=True,
                   stdout=subprocess.DEVNULL)
    return output


def sample_rounds(contenders, warmup, reps, rounds, clock):
    """As torch_bench.timing.measure_rounds (interleaved rounds, each with its
    own warm-up), but returns every sample in ms: the CNN's figures quote p10
    beside p50, since on a shared core the lower percentiles are the ones
    least disturbed by other processes' evictions."""
    samples = {name: [] for name in contenders}
    read = CLOCKS[clock]
    for r in range(rounds):
        block = reps // rounds + (1 if r < reps % rounds else 0)
        for name, call in contenders.items():
            for n in range(warmup + block):
                start = read()
                call()
                if n >= warmup:
                    samples[name].append((read() - start) / 1e6)
    return {name: sorted(values) for name, values in samples.items()}


def export_onnx(model, x, path):
    torch.onnx.export(model, (x,), path, input_names=["x"], output_names=["logits"],
                      opset_version=17, dynamo=False)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build-dir", default="build/release")
    parser.add_argument("--workdir", default="build/bench_cnn")
    parser.add_argument("--norms", default="none,rms_norm,layer_norm,prms_norm")
    parser.add_argument("--reps", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--clock", choices=["wall", "cpu"], default="wall")
    args = parser.parse_args(argv)

    import onnxruntime as ort
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    build = os.path.join(ROOT, args.build_dir)
    workdir = os.path.join(ROOT, args.workdir)
    os.makedirs(workdir, exist_ok=True)
    library = NormrtLibrary(os.path.join(build, "runtime", "libnormrt.so"))
    convert = os.path.join(build, "tools", "convert", "normrt-convert")
    affinity = os.sched_getaffinity(0)
    print(f"torch {torch.__version__}, onnxruntime {ort.__version__}, CPU affinity {sorted(affinity)}"
          + ("" if len(affinity) == 1 else "  (not pinned: run under taskset -c 1)"))

    generator = torch.Generator().manual_seed(96)
    x = torch.randn(1, 3, 32, 32, generator=generator)
    x_np = x.numpy().copy()
    rows = []
    for kind in args.norms.split(","):
        model = ConvPoolCnnC(kind).eval()
        randomize(model, generator)
        paths = {a: export_normrt(model, kind, workdir, convert, a) for a in ("winograd", "direct")}
        onnx_path = os.path.join(workdir, f"cnn_{kind}.onnx")
        export_onnx(model, x, onnx_path)
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        ort_session = ort.InferenceSession(onnx_path, options, providers=["CPUExecutionProvider"])

        sessions = {}  # the normrt contenders
        for name, algorithm, fuse in (("normrt fused", "winograd", True),
                                      ("normrt unfused", "winograd", False),
                                      ("normrt direct", "direct", True)):
            session = library.load(paths[algorithm], fuse=fuse).session()
            session.set_input("x", x_np)
            sessions[name] = session
        with torch.inference_mode():
            reference = model(x).numpy()
        outputs = {}
        for name, session in sessions.items():
            session.run()
            outputs[name] = session.output("logits")
        outputs["onnxruntime"] = ort_session.run(None, {"x": x_np})[0]
        scale = np.abs(reference).max()
        for name, out in outputs.items():
            error = np.abs(out - reference).max() / scale
            if error > 1e-3:
                raise SystemExit(f"{kind}: {name} differs from PyTorch by {error:.2e} (relative)")

        def torch_call():
            with torch.inference_mode():
                model(x)

        contenders = {name: session.run for name, session in sessions.items()}
        contenders.update({
            "pytorch": torch_call,
            "onnxruntime": lambda: ort_session.run(None, {"x": x_np}),
        })
        samples = sample_rounds(contenders, args.warmup, args.reps, args.rounds, args.clock)
        for q in (10, 50):
            t = {name: percentile(values, q) for name, values in samples.items()}
            rows.append((kind, q, t))
            best = t["normrt fused"]
            print(f"{kind:10s} p{q} ms: normrt fused {best:.3f}  unfused {t['normrt unfused']:.3f}  "
                  f"direct {t['normrt direct']:.3f}  pytorch {t['pytorch']:.3f}  onnxruntime "
                  f"{t['onnxruntime']:.3f}   pytorch/normrt {t['pytorch'] / best:.2f}x  "
                  f"onnxruntime/normrt {t['onnxruntime'] / best:.2f}x  (direct: "
                  f"{t['pytorch'] / t['normrt direct']:.2f}x, "
                  f"{t['onnxruntime'] / t['normrt direct']:.2f}x)", flush=True)

    base = {q: t for kind, q, t in rows if kind == "none"}
    if base:
        print("\nnorm cost over the no-norm network (difference / the normed network's time):")
        for kind, q, t in rows:
            if kind == "none":
                continue
            shares = "  ".join(f"{side} {100 * (t[side] - base[q][side]) / t[side]:5.1f} %"
                               for side in t)
            print(f"  {kind:10s} p{q}: {shares}")


if __name__ == "__main__":
    main(sys.argv[1:])
