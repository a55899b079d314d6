"""A Ray Serve deployment of normrt's SentenceEncoder (the Python package).

Each replica is one Ray actor holding one normrt Session (through a
SentenceEncoder) on one CPU; Ray Serve's HTTP proxy spreads requests over
the replicas, on one machine or across a cluster's nodes.

    POST /  {"input": "text" | ["text", ...]}
    → {"data": [{"index": 0, "embedding": [...]}, ...], "replica": "...", "pid": 123,
       "node": "<Ray node id>"}
      and the header x-normrt-replica: the replica that served the request.

Run it (docs/deploy.md):
    serve run normrt_deployment:app model=minilm.nrmt tokenizer=all-MiniLM-L6-v2/
or with the autoscaling configuration of serve_config.yaml:
    serve deploy serve_config.yaml
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

import ray
from ray import serve
from ray.serve import Application
from starlette.requests import Request
from starlette.responses import JSONResponse

import normrt

# What serve_config.yaml sets, for app(autoscaling="true"): start with one
# replica per CPU-worth of load, add one when a replica has more than two
# requests in flight on average (each replica runs one at a time; the second
# waits in the replica, not in the proxy), remove idle ones after a minute.
AUTOSCALING = {
    "min_replicas": 1,
    "initial_replicas": 1,
    "max_replicas": 8,
    "target_ongoing_requests": 2,
    "upscale_delay_s": 5,
    "downscale_delay_s": 60,
}


@serve.deployment(
    ray_actor_options={"num_cpus": 1},  # one replica per core: a Session runs on one thread
    max_ongoing_requests=4,
)
class Embeddings:
    def __init__(self, model: str, tokenizer: str, threads: int = 1) -> None:
        self._encoder = normrt.SentenceEncoder(model, tokenizer=tokenizer, threads=threads)
        self._replica = serve.get_replica_context().replica_id.unique_id
        self._pid = os.getpid()
        self._node = ray.get_runtime_context().get_node_id()

    def _encode(self, texts: list[str]) -> list[list[float]]:
        # float32 → Python float is exact, and JSON keeps a float's repr: the
        # client reads back the very float32 values normrt computed.
        return self._encoder.encode(texts).tolist()

    async def __call__(self, request: Request) -> JSONResponse:
        try:
            body = await request.json()
        except ValueError:
            return self._error("the body is not JSON")
        texts: Any = body.get("input") if isinstance(body, dict) else None
        if isinstance(texts, str):
            texts = [texts]
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            return self._error('"input" must be a string or a list of strings')
        # encode() releases the GIL; running it off the event loop keeps the
        # replica answering health checks while it works.
        loop = asyncio.get_running_loop()
        try:
            vectors = await loop.run_in_executor(None, self._encode, texts)
        except normrt.Error as error:
            return self._error(str(error))
        return JSONResponse(
            {
                "data": [{"index": i, "embedding": v} for i, v in enumerate(vectors)],
                "replica": self._replica,
                "pid": self._pid,
                "node": self._node,
            },
            headers={"x-normrt-replica": self._replica},
        )

    def _error(self, message: str) -> JSONResponse:
        return JSONResponse({"error": message, "replica": self._replica}, status_code=400)


def app(args: dict[str, str]) -> Application:
    """The application builder of `serve run` / serve_config.yaml:
    model=<file.nrmt> tokenizer=<folder> [threads=1] [replicas=N | autoscaling=true]."""
    options: dict[str, Any] = {}
    if args.get("autoscaling", "").lower() in ("1", "true", "yes"):
        options["autoscaling_config"] = AUTOSCALING
    elif "replicas" in args:
        options["num_replicas"] = int(args["replicas"])
    deployment = Embeddings.options(**options) if options else Embeddings
    return deployment.bind(args["model"], args["tokenizer"], int(args.get("threads", "1")))
