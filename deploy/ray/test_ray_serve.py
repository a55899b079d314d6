"""Ray Serve over normrt on a local two-node cluster (loopback only).

A head node and a second node, each a `ray start` process of 1 CPU on
127.0.0.1; the deployment of normrt_deployment.py with 2 replicas (one per
node); ≥ 500 requests through Serve's HTTP proxy, each answer compared bit
for bit with the same texts encoded in this process; both replicas must have
served. Then the same load with 1 replica, for the throughput ratio (printed
and written to $NORMRT_RAY_RESULTS; the target, ≥ 1.7× on 2 cores, is not
asserted: the machine is shared).

Environment: NORMRT_RAY_MODEL (a .nrmt with pooling) and NORMRT_RAY_TOKENIZER
(its folder), set by scripts/test_ray.sh. Every process started here is
stopped here, by its process group.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
import requests

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "python" / "tests"))

import normrt  # noqa: E402
from sentences import SENTENCES  # noqa: E402

REQUESTS = int(os.environ.get("NORMRT_RAY_REQUESTS", "520"))
ONE_REPLICA_REQUESTS = int(os.environ.get("NORMRT_RAY_ONE_REPLICA_REQUESTS", "160"))
CLIENTS = 8  # requests in flight: enough to keep 2 replicas busy
TEXTS_PER_REQUEST = 2
results: dict[str, float] = {}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request_texts(i: int) -> list[str]:
    """Request i: TEXTS_PER_REQUEST consecutive sentences from i mod n."""
    n = len(SENTENCES)
    return [SENTENCES[(i + k) % n] for k in range(TEXTS_PER_REQUEST)]


class RayNode:
    """One `ray start --block` process in a process group of its own:
    stopping it (SIGTERM, then SIGKILL to the group) reaches every process it
    started. Not a session of its own: with Linux's autogroup scheduling a
    new session would get its own CPU share on a loaded machine, and the
    replica counts would be compared under unequal shares."""

    def __init__(self, args: list[str], log: Path):
        ray = Path(sys.executable).with_name("ray")
        self.log = open(log, "w")
        # The replicas import normrt_deployment: workers inherit PYTHONPATH.
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [str(HERE), *filter(None, [os.environ.get("PYTHONPATH")])]))
        self.process = subprocess.Popen(
            [str(ray), "start", "--block", "--num-cpus=1", "--disable-usage-stats",
             "--object-store-memory=150000000", *args],
            stdout=self.log, stderr=subprocess.STDOUT, process_group=0, env=env,
        )

    def stop(self) -> None:
        group = self.process.pid  # the group leader's pid is the group's id
        for sig, wait in ((signal.SIGTERM, 20), (signal.SIGKILL, 10)):
            try:
                os.killpg(group, sig)
            except ProcessLookupError:
                break
            try:
                self.process.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                continue
        # Processes of the group that outlive the leader (raylet's workers).
        try:
            os.killpg(group, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.log.close()


@pytest.fixture(scope="module")
def model_files():
    model, tokenizer = os.environ.get("NORMRT_RAY_MODEL"), os.environ.get("NORMRT_RAY_TOKENIZER")
    if not model or not tokenizer:
        pytest.skip("NORMRT_RAY_MODEL / NORMRT_RAY_TOKENIZER not set (scripts/test_ray.sh sets them)")
    return model, tokenizer


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, model_files):
    import ray
    from ray import serve

    logs = tmp_path_factory.mktemp("ray_logs")
    port = free_port()
    address = f"127.0.0.1:{port}"
    # Ray's own socket paths must stay short: a temp dir of its own under /tmp.
    temp_dir = f"/tmp/normrt_ray_{os.getpid()}"
    nodes = [RayNode(["--head", f"--port={port}", "--node-ip-address=127.0.0.1",
                      "--include-dashboard=false", f"--temp-dir={temp_dir}"],
                     logs / "head.log")]
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            probe = subprocess.run([str(Path(sys.executable).with_name("ray")), "status",
                                    f"--address={address}"], capture_output=True)
            if probe.returncode == 0:
                break
            time.sleep(1)
        nodes.append(RayNode([f"--address={address}", "--node-ip-address=127.0.0.1"],
                             logs / "worker.log"))
        ray.init(address=address, logging_level="ERROR", log_to_driver=False)
        deadline = time.monotonic() + 90
        while sum(n["Alive"] for n in ray.nodes()) < 2:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the second node did not join; logs in {logs}")
            time.sleep(0.5)
        http_port = free_port()
        serve.start(proxy_location="HeadOnly",
                    http_options={"host": "127.0.0.1", "port": http_port})
        yield f"http://127.0.0.1:{http_port}"
    finally:
        try:
            serve.shutdown()
        except Exception:  # the cluster may not have come up
            pass
        ray.shutdown()
        for node in reversed(nodes):
            node.stop()
        shutil.rmtree(temp_dir, ignore_errors=True)


@pytest.fixture(scope="module")
def expected(model_files):
    """Every sentence encoded in this process, one SentenceEncoder."""
    model, tokenizer = model_files
    encoder = normrt.SentenceEncoder(model, tokenizer=tokenizer)
    return {text: row for text, row in zip(SENTENCES, encoder.encode(SENTENCES))}


def deploy(url: str, model_files, replicas: int) -> str:
    from ray import serve

    from normrt_deployment import app

    serve.run(app({"model": model_files[0], "tokenizer": model_files[1],
                   "replicas": str(replicas)}), name="normrt", route_prefix="/embed")
    endpoint = f"{url}/embed"
    requests.post(endpoint, json={"input": "warm up"}, timeout=60).raise_for_status()
    return endpoint


def send(endpoint: str, count: int):
    """`count` requests from CLIENTS threads; returns (seconds, answers in order)."""
    sessions = [requests.Session() for _ in range(CLIENTS)]

    def one(i: int):
        response = sessions[i % CLIENTS].post(endpoint, json={"input": request_texts(i)},
                                              timeout=120)
        return response.status_code, response.headers.get("x-normrt-replica"), response.json()

    begin = time.perf_counter()
    with ThreadPoolExecutor(CLIENTS) as pool:
        answers = list(pool.map(one, range(count)))
    return time.perf_counter() - begin, answers


def check_answers(answers, expected) -> dict[str, int]:
    """Every answer bit-identical to this process's; requests per replica."""
    served: dict[str, int] = {}
    for i, (status, header, body) in enumerate(answers):
        assert status == 200, f"request {i}: HTTP {status}: {body}"
        assert header == body["replica"], f"request {i}: header {header} vs body {body['replica']}"
        served[header] = served.get(header, 0) + 1
        texts = request_texts(i)
        assert [d["index"] for d in body["data"]] == list(range(len(texts)))
        for text, item in zip(texts, body["data"]):
            got = np.array(item["embedding"], dtype=np.float32)
            want = expected[text]
            assert got.tobytes() == want.tobytes(), (
                f"request {i}, text {text[:30]!r}: max |diff| {np.abs(got - want).max()}")
    return served


def test_two_replicas_on_two_nodes_answer_as_one_process(cluster, model_files, expected):
    import ray

    endpoint = deploy(cluster, model_files, replicas=2)
    seconds, answers = send(endpoint, REQUESTS)
    served = check_answers(answers, expected)
    assert len(answers) == REQUESTS >= 500
    assert len(served) == 2, f"replicas that served: {served}"
    assert min(served.values()) >= REQUESTS // 10, f"one replica barely served: {served}"
    pids = {body["pid"] for _, _, body in answers}
    assert len(pids) == 2
    serving_nodes = {body["node"] for _, _, body in answers}
    assert serving_nodes == {n["NodeID"] for n in ray.nodes() if n["Alive"]}
    assert len(serving_nodes) == 2, "both replicas ran on one node"
    results["two_replicas_rps"] = REQUESTS / seconds
    print(f"\nray serve, 2 replicas: {REQUESTS} requests in {seconds:.1f} s "
          f"({REQUESTS / seconds:.1f} req/s), per replica {served}")


def test_throughput_of_one_replica_for_the_ratio(cluster, model_files, expected):
    endpoint = deploy(cluster, model_files, replicas=1)
    seconds, answers = send(endpoint, ONE_REPLICA_REQUESTS)
    served = check_answers(answers, expected)
    assert len(served) == 1
    one = ONE_REPLICA_REQUESTS / seconds
    results["one_replica_rps"] = one
    two = results.get("two_replicas_rps")
    line = f"ray serve, 1 replica: {ONE_REPLICA_REQUESTS} requests in {seconds:.1f} s ({one:.1f} req/s)"
    if two:
        results["ratio"] = two / one
        line += f"; 2 replicas / 1 replica = {two / one:.2f}x (target >= 1.7x on 2 cores)"
    print("\n" + line)
    out = os.environ.get("NORMRT_RAY_RESULTS")
    if out:
        Path(out).write_text(json.dumps({**results, "texts_per_request": TEXTS_PER_REQUEST,
                                         "clients": CLIENTS}, indent=1))


def test_serve_config_is_a_valid_serve_deploy_config():
    """serve_config.yaml (the autoscaling setup docs/deploy.md describes)
    parses as Ray Serve's deploy schema and names this module's builder."""
    import yaml
    from ray.serve.schema import ServeDeploySchema

    config = ServeDeploySchema.model_validate(yaml.safe_load((HERE / "serve_config.yaml").read_text()))
    (application,) = config.applications
    assert application.import_path == "normrt_deployment:app"
    (deployment,) = application.deployments
    from normrt_deployment import AUTOSCALING

    assert deployment.autoscaling_config == AUTOSCALING
