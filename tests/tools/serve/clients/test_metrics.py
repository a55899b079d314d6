"""GET /metrics parsed by the Prometheus client library's own parser
(prometheus-client, PyPI): every family typed, histograms consistent, and
the counters moved by the requests sent."""

from __future__ import annotations

import urllib.request

from prometheus_client.parser import text_string_to_metric_families


def families(server) -> dict:
    status, headers, body = server.get("/metrics")
    assert status == 200
    assert headers["Content-Type"].startswith("text/plain; version=0.0.4")
    return {f.name: f for f in text_string_to_metric_families(body.decode())}


def test_metrics_parse_and_count(server):
    before = families(server)
    for _ in range(3):
        urllib.request.urlopen(server.url + "/v1/health").read()
    after = families(server)
    assert after["normrt_model_generation"].samples[0].value == 1
    assert after["normrt_model_load_seconds"].samples[0].value > 0
    assert after["normrt_workers"].samples[0].value == 2
    assert after["normrt_queue_depth"].type == "gauge"

    def health_count(fams) -> float:
        if "normrt_http_requests" not in fams:
            return 0
        return sum(s.value for s in fams["normrt_http_requests"].samples
                   if s.labels.get("endpoint") == "/v1/health" and s.labels["status"] == "200")

    assert health_count(after) - health_count(before) == 3
    histogram = after["normrt_http_request_duration_seconds"]
    assert histogram.type == "histogram"
    buckets = [s for s in histogram.samples
               if s.name.endswith("_bucket") and s.labels["endpoint"] == "/v1/health"]
    counts = [s.value for s in buckets]
    assert counts == sorted(counts) and buckets[-1].labels["le"] == "+Inf"
    total = [s.value for s in histogram.samples
             if s.name.endswith("_count") and s.labels["endpoint"] == "/v1/health"]
    assert total == [counts[-1]]
