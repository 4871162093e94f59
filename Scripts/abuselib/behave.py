"""The well-behaved clients whose latency is the figure, and the percentiles of their calls."""

import time

from .server import real_time
from .wire import Client, f_bytes


def behave(address, ctx, start_at, until, method, results, fifo=0):
    """A well-behaved client's process: `method` (Health/Check, or GetTags of a small device) one
    call at a time on its own connection, 2 ms apart."""
    real_time(fifo)
    while time.time() < start_at:
        time.sleep(0.01)
    client = Client(address)
    if method == "health":
        path, message = "/pushwire.v1.Health/Check", b""
    else:
        path, message = "/pushwire.v1.Devices/GetTags", f_bytes(1, ctx["application"]) + f_bytes(2, "abuse-small")
    samples, failures = [], 0
    while time.time() < until:
        started = time.perf_counter_ns()
        try:
            code, _, _ = client.call(path, message)
        except OSError:
            # No answer within the socket's 30 s: counted at 30 s, and a new connection.
            code = -1
            client.sock.close()
            client = Client(address)
        samples.append(time.perf_counter_ns() - started)
        if code != 0:
            failures += 1
        time.sleep(0.002)
    results.put((method, samples, failures))


def percentiles(samples):
    if not samples:
        return {}
    ordered = sorted(samples)

    def at(q):
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] / 1e6
    return {"count": len(ordered), "p50_ms": at(0.5), "p90_ms": at(0.9), "p99_ms": at(0.99), "max_ms": ordered[-1] / 1e6}
