"""Running the load generators and peers: pushwire-bench, redis-benchmark, the gRPC C++ echo client,
the raw SQLite ceiling."""

import json
import os
import re
import subprocess

from .common import ROOT, run



def pushwire_bench(binary, scenario, address, connections, depth, seconds, warmup, extra=()):
    out = run([binary, scenario, "--target", address, "--connections", str(connections),
               "--concurrency", str(depth), "--duration", f"{seconds}s", "--warmup", f"{warmup}s", "--json"]
              + list(extra), seconds + warmup + 120)
    report = json.loads(out)
    return {"rps": report["requests_per_second"], "p50_us": report["latency"]["p50_us"],
            "p99_us": report["latency"]["p99_us"], "harness_us": report["harness_us_per_call"],
            "errors": report["errors"]}


def pushwire_bench_pair(binary, address, seconds, warmup):
    """Two harness processes at once, each 4 × 16: their summed rate against one process's."""
    command = lambda: [binary, "ping", "--target", address, "--connections", "4", "--concurrency", "16",  # noqa: E731
                       "--duration", f"{seconds}s", "--warmup", f"{warmup}s", "--json"]
    processes = [subprocess.Popen(command(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(2)]
    total = 0.0
    for process in processes:
        out, _ = process.communicate(timeout=seconds + warmup + 30)
        total += json.loads(out)["requests_per_second"]
    return {"rps": total}


def sqlite_ceiling(rows, batch, prefill=0):
    out = run([os.path.join(ROOT, "Scripts", "sqlite-ceiling", "run"), str(rows), str(batch), str(prefill)], 600)
    match = re.search(r"rows_per_second=([0-9.]+)", out)
    if not match:
        raise RuntimeError(f"unexpected ceiling output: {out[-300:]}")
    return float(match.group(1))


def redis(port, connections, pipeline, requests):
    out = run(["redis-benchmark", "-h", "127.0.0.1", "-p", str(port), "-t", "ping_mbulk", "-c", str(connections),
               "-P", str(pipeline), "-n", str(requests), "--csv"], 300)
    for line in out.splitlines():
        if line.startswith('"PING_MBULK"'):
            fields = [float(x.strip('"')) for x in line.split(",")[1:]]
            return {"rps": fields[0], "p50_us": fields[3] * 1000, "p99_us": fields[5] * 1000}
    raise RuntimeError(f"unexpected redis-benchmark output: {out[-300:]}")


def grpc(client, address, channels, depth, seconds, warmup):
    out = run([client, address, str(channels), str(depth), str(seconds), str(warmup)], seconds + warmup + 60)
    values = dict(item.split("=") for item in out.split())
    return {"rps": float(values["rps"]), "p50_us": float(values["p50_us"]), "p99_us": float(values["p99_us"]),
            "errors": float(values["errors"])}


def has_send(bench):
    """Whether this pushwire-bench has the `send` scenario (CreateMessage)."""
    help_text = subprocess.run([bench, "--help"], capture_output=True, text=True).stdout
    return "pushwire-bench send" in help_text
