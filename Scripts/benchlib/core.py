"""The suite's own rows (Ping, Health/Check, the harness, RegisterDevice, SyncCategories,
CreateMessage, the gateways) on one pushwired and its peers."""

import os
import re
import shutil
import sqlite3
import tempfile
import time

from .common import APNS_COUNT, REGISTER_POOL, REGISTER_TABLE_FLOOR, ROOT, SEND_DEVICES, build_peers, log, median_of, run
from .peers import grpc, has_send, pushwire_bench, pushwire_bench_pair, redis, sqlite_ceiling
from .servers import free_port, start


def undelivered_messages(data_dir):
    """Messages of pushwired's outbox not yet delivered (scheduled or sending), read from its
    database as the run ends: a CreateMessage rate counts only if delivery keeps up with it."""
    with sqlite3.connect(f"file:{os.path.join(data_dir, 'pushwire.sqlite3')}?mode=ro", uri=True, timeout=10) as db:
        return db.execute("SELECT count(*) FROM messages WHERE status IN (1, 2)").fetchone()[0]


def sync_vs_ping(binary, address, data_dir, seconds, warmup):
    """SyncCategories (matching version) and Ping at 4 × 16, back to back: their ratio in one run."""
    sync = pushwire_bench(binary, "sync", address, 4, 16, seconds, warmup, ["--data-dir", data_dir])
    ping = pushwire_bench(binary, "ping", address, 4, 16, seconds, warmup)
    if sync["errors"]:
        raise RuntimeError(f"sync: {sync['errors']} errors")
    return {"rps": sync["rps"], "p50_us": sync["p50_us"], "p99_us": sync["p99_us"], "ping_rps": ping["rps"],
            "ratio": sync["rps"] / ping["rps"]}


# Devices pushwired holds so far (about): the ceiling's table is prefilled to the same size.
registered = {"devices": 0}


def register_vs_ceiling(binary, address, data_dir, seconds, warmup):
    """RegisterDevice of new devices at 4 × 16 = 64 in flight, then the raw SQLite ceiling with the same
    durability and batch size (64) and a table of about the same size: their ratio in one run."""
    if registered["devices"] < REGISTER_TABLE_FLOOR:
        fill = REGISTER_TABLE_FLOOR - registered["devices"]
        run([binary, "register", "--target", address, "--connections", "4", "--concurrency", "16",
             "--requests", str(fill), "--warmup", "0s", "--json", "--data-dir", data_dir], 600)
        registered["devices"] += fill
    before = registered["devices"]
    reg = pushwire_bench(binary, "register", address, 4, 16, seconds, warmup, ["--data-dir", data_dir])
    registered["devices"] += int(reg["rps"] * (seconds + warmup))
    if reg["errors"]:
        raise RuntimeError(f"register: {reg['errors']} errors")
    ceiling = sqlite_ceiling(rows=max(20_000, int(reg["rps"] * seconds)), batch=64, prefill=before)
    return {"rps": reg["rps"], "p50_us": reg["p50_us"], "p99_us": reg["p99_us"], "ceiling_rps": ceiling,
            "ratio": reg["rps"] / ceiling}


def apns_gateway(scratch, count):
    """Scripts/apns-double/bench, one round: h2load and pushwire-apns-bench (the default nghttp2
    transport only) against the same nghttpd."""
    if not shutil.which("h2load") or not shutil.which("nghttpd"):
        raise RuntimeError("h2load/nghttpd missing (apt-get install nghttp2-client nghttp2-server)")
    env = dict(os.environ, SCRATCH=scratch or ".build", PORT=str(free_port()), TRANSPORTS="nghttp2")
    out = run([os.path.join(ROOT, "Scripts", "apns-double", "bench"), str(count), "2", "100", "1"], 900, env=env)
    rates = [float(x) for x in re.findall(r"finished in [0-9.]+m?s, ([0-9.]+) req/s", out)]
    if len(rates) < 2:
        raise RuntimeError(f"unexpected apns bench output: {out[-300:]}")
    return {"h2load_rps": rates[0], "rps": rates[1], "ratio": rates[1] / rates[0]}


def fcm_gateway(scratch, count):
    """Scripts/fcm-double/bench, one round: h2load and pushwire-apns-bench --service fcm against
    the same nghttpd (which also answers the OAuth2 token request)."""
    if not shutil.which("h2load") or not shutil.which("nghttpd"):
        raise RuntimeError("h2load/nghttpd missing (apt-get install nghttp2-client nghttp2-server)")
    env = dict(os.environ, SCRATCH=scratch or ".build", PORT=str(free_port()))
    out = run([os.path.join(ROOT, "Scripts", "fcm-double", "bench"), str(count), "2", "100", "1"], 900, env=env)
    rates = [float(x) for x in re.findall(r"finished in [0-9.]+m?s, ([0-9.]+) req/s", out)]
    if len(rates) < 2:
        raise RuntimeError(f"unexpected fcm bench output: {out[-300:]}")
    return {"h2load_rps": rates[0], "rps": rates[1], "ratio": rates[1] / rates[0]}


def suite_figures(options, bin_dir, bench):
    """The suite's table rows: starts pushwired, the loopback server, redis-server and the gRPC echo
    server, measures each figure `options.runs` times (medians), stops them all; returns the figures,
    the load average after each, and the codec microbenchmark's output."""
    peers = build_peers(os.path.join(ROOT, ".build", "bench-peers"))

    data_dir = tempfile.mkdtemp(prefix="pushwire-bench-data-")
    servers = []
    try:
        pushwired_binary = options.pushwired or os.path.join(bin_dir, "pushwired")
        pushwired = start("pushwired", [pushwired_binary, "--listen", "127.0.0.1:0",
                                        "--data-dir", data_dir])
        loopback = start("loopback", [bench, "loopback-server", "--listen", "127.0.0.1:0"])
        redis_port = free_port()
        redis_server = start("redis-server", ["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1",
                                              "--save", "", "--appendonly", "no"], wait_line=False, port=redis_port)
        grpc_server = start("grpc-echo-server", [os.path.join(peers, "grpc-echo-server")]) if peers else None
        servers = [s for s in [pushwired, loopback, redis_server, grpc_server] if s]
        time.sleep(0.5)  # redis prints no parseable line on stdout; give it a moment

        seconds, warmup, runs = options.seconds, options.warmup, options.runs
        missing = lambda name: (lambda: (_ for _ in ()).throw(RuntimeError(f"{name} not running")))  # noqa: E731

        def pw(scenario, c, k, server=pushwired, name="pushwired", extra=()):
            if not server:
                return missing(name)
            return lambda: pushwire_bench(bench, scenario, server.address, c, k, seconds, warmup, extra)

        redis_requests = int(400_000 * seconds)
        register_pool = pw("register", 4, 16, extra=["--data-dir", data_dir, "--pool", str(REGISTER_POOL)])

        send = pw("send", 4, 16, extra=["--data-dir", data_dir, "--devices", str(SEND_DEVICES)])

        def send_figure():
            if not has_send(bench):
                raise RuntimeError("no `pushwire-bench send` scenario in this build")
            figure = send()
            figure["backlog"] = undelivered_messages(data_dir)
            return figure

        def pool_figure():
            registered["devices"] += REGISTER_POOL  # each run's pool is a new application's
            return register_pool()
        plan = [
            ("redis_4x16", (lambda: redis(redis_port, 4, 16, redis_requests)) if redis_server else missing("redis")),
            ("redis_1x1", (lambda: redis(redis_port, 1, 1, int(10_000 * seconds))) if redis_server else missing("redis")),
            ("pw_ping_4x16", pw("ping", 4, 16)),
            ("pw_ping_1x1", pw("ping", 1, 1)),
            ("pw_health_4x16", pw("health", 4, 16)),
            ("pw_health_1x1", pw("health", 1, 1)),
            ("grpc_4x16", (lambda: grpc(os.path.join(peers, "grpc-echo-client"), grpc_server.address, 4, 16, seconds,
                                        warmup)) if grpc_server else missing("gRPC echo server")),
            ("grpc_1x1", (lambda: grpc(os.path.join(peers, "grpc-echo-client"), grpc_server.address, 1, 1, seconds,
                                       warmup)) if grpc_server else missing("gRPC echo server")),
            ("loopback_4x16", pw("ping", 4, 16, loopback, "loopback server")),
            ("pw_ping_pair", (lambda: pushwire_bench_pair(bench, pushwired.address, seconds, warmup))
             if pushwired else missing("pushwired")),
            ("pw_register_new", (lambda: register_vs_ceiling(bench, pushwired.address, data_dir, seconds, warmup))
             if pushwired else missing("pushwired")),
            ("pw_register_pool", pool_figure),
            ("pw_sync", (lambda: sync_vs_ping(bench, pushwired.address, data_dir, seconds, warmup))
             if pushwired else missing("pushwired")),
            ("pw_send", send_figure),
            ("apns", lambda: apns_gateway(options.scratch_path, APNS_COUNT // 4 if options.quick else APNS_COUNT)),
            ("fcm", lambda: fcm_gateway(options.scratch_path, APNS_COUNT // 4 if options.quick else APNS_COUNT)),
        ]
        figures = {}
        loads = {}
        for name, measure in plan:
            log(f"measuring {name} ({runs} run(s))")
            figures[name] = median_of(runs, measure)
            loads[name] = os.getloadavg()[0]
            log(f"  {name}: {figures[name]}")


        codec_output = ""
        codec = os.path.join(bin_dir, "pushwire-codec-bench")
        if os.path.exists(codec):
            try:
                # It takes no flags; CODEC_BENCH_SECONDS shortens each of its runs.
                env = dict(os.environ, CODEC_BENCH_SECONDS="0.1") if options.quick else None
                codec_output = run([codec], 300, env=env)
            except Exception as error:  # noqa: BLE001
                codec_output = f"n/a ({error})"
    finally:
        for server in servers:
            server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
    return figures, loads, codec_output
