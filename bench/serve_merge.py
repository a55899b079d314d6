#!/usr/bin/env python3
"""What merging requests buys in normrt-serve (docs/serve.md, "Merging
requests"): N concurrent clients on keep-alive connections, each sending one
text per /v1/embeddings request, against the same server with merging off
and on (--batch-wait-ms W), for a fixed time per setting; settings
interleaved over rounds. Reports requests/s, latency percentiles and the
mean number of requests per merged run (from /metrics).

The clients are Python threads in this process: pin the whole run (e.g.
`taskset -c 0,1`) and they share the server's CPUs, as a sidecar would.

    taskset -c 0,1 /work/venv/bin/python bench/serve_merge.py \\
        --model minilm.nrmt --clients 1,8,32 --waits off,0,2 --seconds 8
"""
import argparse
import http.client
import json
import os
import re
import signal
import subprocess
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def sentences():
    with open(os.path.join(HERE, "peer_sentences.txt"), encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f if line.strip() and not line.startswith("#")]


def start_server(args, clients, wait):
    cmd = [args.serve, args.model, "--port", "0", "--workers", str(args.workers),
           "--http-threads", str(max(16, clients + 4)), "--max-queue", "1024"]
    if wait != "off":
        cmd += ["--batch-wait-ms", wait]
        if args.max_batch_texts:
            cmd += ["--max-batch-texts", str(args.max_batch_texts)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()
    match = re.search(r":(\d+)\s*$", line)
    if not match:
        proc.kill()
        raise SystemExit(f"normrt-serve did not start: {line!r}")
    return proc, int(match.group(1))


def metric(port, name):
    conn = http.client.HTTPConnection("127.0.0.1", port)
    conn.request("GET", "/metrics")
    text = conn.getresponse().read().decode()
    conn.close()
    match = re.search(r"^" + re.escape(name) + r" (\S+)$", text, re.M)
    return float(match.group(1)) if match else 0.0


def measure(args, texts, clients, wait):
    proc, port = start_server(args, clients, wait)
    stop_at = [0.0]
    counting = threading.Event()
    latencies, errors = [[] for _ in range(clients)], [0] * clients

    def client(k):
        conn = http.client.HTTPConnection("127.0.0.1", port)
        i = k
        while True:
            now = time.perf_counter()
            if stop_at[0] and now >= stop_at[0]:
                break
            body = json.dumps({"input": texts[i % len(texts)]})
            i += clients
            conn.request("POST", "/v1/embeddings", body, {"Content-Type": "application/json"})
            response = conn.getresponse()
            response.read()
            if counting.is_set():
                if response.status == 200:
                    latencies[k].append(time.perf_counter() - now)
                else:
                    errors[k] += 1
        conn.close()

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    time.sleep(args.warmup)
    runs0 = metric(port, "normrt_merged_run_requests_count")
    merged0 = metric(port, "normrt_merged_run_requests_sum")
    counting.set()
    start = time.perf_counter()
    stop_at[0] = start + args.seconds
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - start
    runs = metric(port, "normrt_merged_run_requests_count") - runs0
    merged = metric(port, "normrt_merged_run_requests_sum") - merged0
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    all_latencies = sorted(x for per in latencies for x in per)
    count = len(all_latencies)
    pct = (lambda q: 1e3 * all_latencies[min(count - 1, int(q * count))]) if count else (
        lambda q: float("nan"))
    return {"clients": clients, "wait": wait, "requests_per_s": count / elapsed,
            "p50_ms": pct(0.5), "p99_ms": pct(0.99), "errors": sum(errors),
            "requests_per_run": merged / runs if runs else None}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--serve", default=os.path.join(HERE, "..", "build", "release", "tools",
                                                        "serve", "normrt-serve"))
    parser.add_argument("--model", required=True, help="an embedding model with its tokenizer "
                        "stored (normrt-convert --model all-MiniLM-L6-v2)")
    parser.add_argument("--clients", default="1,8,32")
    parser.add_argument("--waits", default="off,0,2", help="off, or --batch-wait-ms values")
    parser.add_argument("--max-batch-texts", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--warmup", type=float, default=1.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args()
    texts = sentences()
    print(f"cpus {sorted(os.sched_getaffinity(0))}; load average {os.getloadavg()}; "
          f"{len(texts)} texts; {args.workers} workers", flush=True)
    rows = []
    for clients in [int(c) for c in args.clients.split(",")]:
        results = {w: [] for w in args.waits.split(",")}
        for _ in range(args.rounds):
            for wait in results:
                results[wait].append(measure(args, texts, clients, wait))
        for wait, runs in results.items():
            best = max(runs, key=lambda r: r["requests_per_s"])  # least disturbed round
            best["rounds_requests_per_s"] = [round(r["requests_per_s"], 1) for r in runs]
            rows.append(best)
            off = max(r["requests_per_s"] for r in results.get("off", runs))
            per_run = best["requests_per_run"]
            print(f"clients {clients:3d}  wait {wait:>4}  {best['requests_per_s']:8.1f} req/s "
                  f"({best['requests_per_s'] / off:4.2f}x off)  p50 {best['p50_ms']:6.2f} ms  "
                  f"p99 {best['p99_ms']:6.2f} ms  requests/run "
                  f"{'-' if per_run is None else f'{per_run:.2f}'}  errors {best['errors']}  "
                  f"rounds {best['rounds_requests_per_s']}", flush=True)
    print(f"load average at end {os.getloadavg()}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
