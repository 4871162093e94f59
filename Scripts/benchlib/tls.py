"""`--tls`: pushwired over TLS against redis-server --tls-port and openssl s_server on the same
certificate: Ping, new connections, idle connections' memory."""

import json
import os
import shutil
import socket
import tempfile
import time

from .common import ROOT, log, median_of, run
from .numbers import number, ratio
from .peers import pushwire_bench
from .servers import free_port, rss_kib, start


def redis_tls(port, ca, connections, pipeline, requests):
    out = run(["redis-benchmark", "--tls", "--cacert", ca, "-h", "127.0.0.1", "-p", str(port), "-t", "ping_mbulk",
               "-c", str(connections), "-P", str(pipeline), "-n", str(requests), "--csv"], 300)
    for line in out.splitlines():
        if line.startswith('"PING_MBULK"'):
            fields = [float(x.strip('"')) for x in line.split(",")[1:]]
            return {"rps": fields[0], "p50_us": fields[3] * 1000, "p99_us": fields[5] * 1000}
    raise RuntimeError(f"unexpected redis-benchmark output: {out[-300:]}")


def handshakes(bench, address, ca, seconds, warmup, http_get=False):
    """`pushwire-bench handshake`: sequential new connections, each a full TLS 1.3 handshake and one
    Health/Check (or, with `http_get`, one `GET / HTTP/1.0` read to the end: the same loop against
    `openssl s_server -www`), timed to the microsecond."""
    out = run([bench, "handshake", "--target", address, "--ca-file", ca, "--duration", f"{seconds}s",
               "--warmup", f"{warmup}s", "--json"] + (["--http-get"] if http_get else []), seconds + warmup + 60)
    report = json.loads(out)
    if report["failures"]:
        raise RuntimeError(f"handshake: {report['failures']} failed")
    return {"rps": report["perSecond"], "p50_us": report["p50Micros"]}


def idle_tls_connections(server, ca, count):
    """Opens `count` TLS connections to pushwired (handshake, preface, its Settings read), holds
    them idle, and reads pushwired's RSS before and with them."""
    import ssl
    context = ssl.create_default_context(cafile=ca)
    context.set_alpn_protocols(["pwire/1"])
    host, port = server.address.rsplit(":", 1)
    before = rss_kib(server.process.pid)
    held = []
    started = time.time()
    try:
        for _ in range(count):
            raw = socket.create_connection((host, int(port)), timeout=10)
            tls = context.wrap_socket(raw, server_hostname=host)
            tls.sendall(b"PWIRE/1\n")
            got = b""
            while len(got) < 8:
                chunk = tls.recv(4096)
                if not chunk:
                    raise RuntimeError(f"closed after {len(held)} connections")
                got += chunk
            held.append(tls)
        opened = time.time() - started
        time.sleep(2)  # the housekeeping tick gives idle connections' buffers back after 1 s
        with_them = rss_kib(server.process.pid)
        # What pushwired itself holds (sockets and the rest of its descriptors), so that a
        # connection it closed is not counted.
        server_fds = len(os.listdir(f"/proc/{server.process.pid}/fd"))
        return {"count": len(held), "server_fds": server_fds, "rss_mib": with_them / 1024, "before_mib": before / 1024,
                "per_connection_kib": (with_them - before) / len(held), "open_seconds": opened}
    finally:
        for tls in held:
            tls.close()


def tls_figures(bench, pushwired_binary, options):
    """The TLS figures, each pair in one run: pushwired and redis-server on the same certificate."""
    material = tempfile.mkdtemp(prefix="pushwire-bench-tls-")
    data_dir = tempfile.mkdtemp(prefix="pushwire-bench-tls-data-")
    servers = []
    figures = {}
    try:
        run([os.path.join(ROOT, "Scripts", "tls", "make-test-ca"), material], 60)
        cert, key, ca = (os.path.join(material, name) for name in ("server.pem", "server.key", "ca.pem"))
        pushwired = start("pushwired (TLS)", [pushwired_binary, "--listen", "127.0.0.1:0", "--data-dir", data_dir,
                                              "--tls-cert", cert, "--tls-key", key, "--http-listen", "off",
                                              "--max-connections-per-peer", "20000", "--log-level", "warning",
                                              # Opening 10,000 connections takes minutes on a busy machine: the
                                              # default 300 s idle timeout closed the first ones before the RSS
                                              # was read (the 07:28 run: 3,300 of 8,800 still open at pushwired).
                                              "--idle-timeout", "0"])
        redis_port, s_server_port = free_port(), free_port()
        redis_server = start("redis-server (TLS)", ["redis-server", "--port", "0", "--tls-port", str(redis_port),
                                                    "--tls-cert-file", cert, "--tls-key-file", key,
                                                    "--tls-ca-cert-file", ca, "--tls-auth-clients", "no",
                                                    "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
                             wait_line=False, port=redis_port)
        s_server = start("openssl s_server", ["openssl", "s_server", "-accept", f"127.0.0.1:{s_server_port}",
                                              "-cert", cert, "-key", key, "-www", "-quiet", "-no_ticket"],
                         wait_line=False, port=s_server_port)
        servers = [s for s in [pushwired, redis_server, s_server] if s]
        time.sleep(0.5)
        if not pushwired:
            return "n/a (pushwired with TLS did not start)"
        seconds, warmup, runs = options.seconds, options.warmup, options.runs
        tls_args = ["--ca-file", ca]
        plan = [
            ("redis_4x16", lambda: redis_tls(redis_port, ca, 4, 16, int(300_000 * seconds))),
            ("pw_4x16", lambda: pushwire_bench(bench, "ping", pushwired.address, 4, 16, seconds, warmup, tls_args)),
            ("redis_1x1", lambda: redis_tls(redis_port, ca, 1, 1, int(10_000 * seconds))),
            ("pw_1x1", lambda: pushwire_bench(bench, "ping", pushwired.address, 1, 1, seconds, warmup, tls_args)),
        ]
        for name, measure in plan:
            log(f"measuring TLS {name} ({runs} run(s))")
            figures[name] = median_of(runs, measure)
            log(f"  {name}: {figures[name]}")
        # The handshake rate: the same loop (pushwire-bench handshake) against both servers, the
        # runs alternating so that a change in the machine's load hits both alike.
        log(f"measuring TLS handshakes against pushwired and s_server, alternating ({runs} run(s) each)")
        pw_runs, s_runs = [], []
        try:
            for _ in range(runs):
                pw_runs.append(handshakes(bench, pushwired.address, ca, seconds, warmup))
                s_runs.append(handshakes(bench, f"127.0.0.1:{s_server_port}", ca, seconds, warmup, http_get=True))
            figures["pw_handshakes"] = sorted(pw_runs, key=lambda r: r["rps"])[len(pw_runs) // 2]
            figures["s_server_handshakes"] = sorted(s_runs, key=lambda r: r["rps"])[len(s_runs) // 2]
            log(f"  pushwired: {[r['rps'] for r in pw_runs]}/s, s_server: {[r['rps'] for r in s_runs]}/s")
        except Exception as error:  # noqa: BLE001 - reported in the table as n/a
            figures["pw_handshakes"] = figures["s_server_handshakes"] = f"n/a ({str(error).splitlines()[0][:120]})"
        log("measuring 10,000 idle TLS connections")
        try:
            figures["idle"] = idle_tls_connections(pushwired, ca, 10_000)
        except Exception as error:  # noqa: BLE001 - reported in the block
            figures["idle"] = f"n/a ({error})"
        log(f"  idle: {figures['idle']}")
        figures["load"] = os.getloadavg()[0]
        return figures
    except Exception as error:  # noqa: BLE001 - reported, not fatal
        return f"n/a ({error})"
    finally:
        for server in servers:
            server.stop()
        shutil.rmtree(material, ignore_errors=True)
        shutil.rmtree(data_dir, ignore_errors=True)


def tls_block(f, options):
    """The TLS rows, as a small table of their own."""
    header = "| Figure (TLS 1.3, EC P-256, AES-256-GCM) | pushwired | peer | peer's figure | ratio | target |\n|---|---|---|---|---|---|"
    if isinstance(f, str):
        return f"{header}\n| TLS figures | {f} | — | — | — | — |"
    idle = f["idle"]
    idle_text = idle if isinstance(idle, str) else (
        f"{idle['rss_mib']:.0f} MiB RSS with {idle['count']:,} ({idle['before_mib']:.0f} MiB before; "
        f"{idle['per_connection_kib']:.1f} KiB each; opened in {idle['open_seconds']:.0f} s)")
    rows = [
        header,
        f"| Ping over TLS, 4 conns × 16 in flight (calls/s) | {number(f['pw_4x16'], 'rps')} "
        f"| redis-benchmark --tls -t ping_mbulk -c 4 -P 16 | {number(f['redis_4x16'], 'rps')} "
        f"| {ratio(f['pw_4x16'], f['redis_4x16'], 'rps')} | ≥ 0.8× |",
        f"| Ping over TLS, 1 × 1, median latency (µs) | {number(f['pw_1x1'], 'p50_us')} "
        f"| redis-benchmark --tls -c 1 -P 1 | {number(f['redis_1x1'], 'p50_us')} "
        f"| {ratio(f['pw_1x1'], f['redis_1x1'], 'p50_us')} | ≤ 1.2× |",
        f"| New TLS connections: full handshake + one Health/Check, one after another (conn/s) "
        f"| {number(f['pw_handshakes'], 'rps')} | the same loop (pushwire-bench handshake --http-get: GET / HTTP/1.0) against openssl s_server -www -no_ticket "
        f"| {number(f['s_server_handshakes'], 'rps')} | {ratio(f['pw_handshakes'], f['s_server_handshakes'], 'rps')} | ≥ 0.8× |",
        f"| 10,000 idle TLS connections, pushwired RSS | {idle_text} | — | — | — | < 300 MiB |",
    ]
    return "\n".join(rows) + (f"\n\nMedian of {options.runs} run(s) of {options.seconds:g} s; load average at the end "
                              f"{f['load']:.2f}. Command: `Scripts/bench --tls{' --only-extra' if options.only_extra else ''}"
                              f"{' --quick' if options.quick else ''}`.")
