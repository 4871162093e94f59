"""The suite's table (its rows, the machine, the loads), and writing it into docs/BENCHMARKS.md between its markers."""

import os

from .common import APNS_COUNT, BEGIN, DOC, END, REGISTER_POOL, REGISTER_TABLE_FLOOR, ROOT, SEND_DEVICES, log
from .http_door import http_rows
from .numbers import number, own_ratio, ratio, side



def send_backlog(figure):
    """The CreateMessage row's note: messages still undelivered when that run ended."""
    if isinstance(figure, str) or "backlog" not in figure:
        return ""
    return f" (undelivered as a run ended: {figure['backlog']:,.0f} messages)"


def fanout_row(fanout):
    """The fan-out row: the figure of `--fanout N` when it was measured, else where to find it."""
    if fanout is None:
        return ("| Messages fan-out to 1 M devices | not in this run (`Scripts/bench --fanout 1000000`; "
                "see docs/BENCHMARKS.md, Messages fan-out) | — | — | — | ≤ 5 s |")
    if isinstance(fanout, str):
        return f"| Messages fan-out to 1 M devices | {fanout} | — | — | — | ≤ 5 s |"
    return (f"| Messages fan-out: one message to {fanout['sent']:,} devices in 3 languages, NullGateway (s) "
            f"| {fanout['seconds']:.2f} s (± {fanout['resolution_seconds'] * 1000:.0f} ms; "
            f"{fanout['devices_per_second']:,.0f} devices/s; RSS +{fanout.get('rss_growth_mib', 0):.0f} MiB; "
            f"load {fanout['load']:.1f}) | — | — | — | ≤ 5 s |")


def render(figures, info, options, codec_output, loads, fanout=None):
    f = figures
    loopback = f["loopback_4x16"]
    capacity = loopback if isinstance(loopback, str) else {"rps": 1e6 / loopback["harness_us"]}
    lines = [
        f"Run {info['date']} on {info['cpus']} CPUs ({info['cpu']}), Linux {info['kernel']}, {info['swift']}; "
        f"load average at the end {info['load']}. Each figure is the median of {options.runs} run(s) of "
        f"{options.seconds:g} s after {options.warmup:g} s of warm-up. Client and server share the machine; "
        f"traffic on 127.0.0.1 only.",
        "",
        f"Command: `Scripts/bench{' --quick' if options.quick else ''}"
        f"{f' --runs {options.runs}' if options.runs_given else ''}"
        f"{' --pushwired ' + options.pushwired if options.pushwired else ''}"
        f"{f' --fanout {options.fanout}' if options.fanout else ''}`",
        "",
        "| figure | Pushwire | peer | peer figure | ratio | target |",
        "|---|---|---|---|---|---|",
        f"| Ping, 4 conns × 16 in flight (calls/s) | {number(f['pw_ping_4x16'], 'rps')} "
        f"| redis-benchmark -t ping_mbulk -c 4 -P 16 | {number(f['redis_4x16'], 'rps')} "
        f"| {ratio(f['pw_ping_4x16'], f['redis_4x16'], 'rps')} | ≥ 0.5× |",
        f"| Ping, 1 × 1, median latency (µs) | {number(f['pw_ping_1x1'], 'p50_us')} "
        f"| redis-benchmark -t ping_mbulk -c 1 -P 1 | {number(f['redis_1x1'], 'p50_us')} "
        f"| {ratio(f['pw_ping_1x1'], f['redis_1x1'], 'p50_us')} | ≤ 1.5× |",
        f"| Health/Check unary, 4 × 16 (calls/s) | {number(f['pw_health_4x16'], 'rps')} "
        f"| gRPC C++ echo, 4 channels × 16 | {number(f['grpc_4x16'], 'rps')} "
        f"| {ratio(f['pw_health_4x16'], f['grpc_4x16'], 'rps')} | ≥ 10× |",
        f"| Health/Check unary, 1 × 1 (calls/s) | {number(f['pw_health_1x1'], 'rps')} "
        f"| gRPC C++ echo, 1 channel × 1 | {number(f['grpc_1x1'], 'rps')} "
        f"| {ratio(f['pw_health_1x1'], f['grpc_1x1'], 'rps')} | — |",
        f"| Health/Check unary, 1 × 1, median latency (µs) | {number(f['pw_health_1x1'], 'p50_us')} "
        f"| gRPC C++ echo, 1 channel × 1 | {number(f['grpc_1x1'], 'p50_us')} "
        f"| {ratio(f['pw_health_1x1'], f['grpc_1x1'], 'p50_us')} | — |",
        f"| Harness ceiling: Ping 4 × 16 vs pushwire-bench's loopback server (calls/s) "
        f"| {number(f['loopback_4x16'], 'rps')} | pushwired, same load | {number(f['pw_ping_4x16'], 'rps')} "
        f"| {ratio(f['loopback_4x16'], f['pw_ping_4x16'], 'rps')} | — |",
        f"| Harness CPU per Ping call, 1 thread, vs the loopback server (µs) | {number(f['loopback_4x16'], 'harness_us')} "
        f"| the same, vs pushwired | {number(f['pw_ping_4x16'], 'harness_us')} | — | — |",
        f"| Harness capacity on one core, 1 / CPU per call (calls/s) | {number(capacity, 'rps')} "
        f"| pushwired Ping 4 × 16 | {number(f['pw_ping_4x16'], 'rps')} "
        f"| {ratio(capacity, f['pw_ping_4x16'], 'rps')} | ≥ 2× |",
        f"| Two harness processes vs one, Ping 4 × 16 each, vs pushwired (calls/s) "
        f"| {number(f['pw_ping_pair'], 'rps')} | one process | {number(f['pw_ping_4x16'], 'rps')} "
        f"| {ratio(f['pw_ping_pair'], f['pw_ping_4x16'], 'rps')} | ≈ 1× (server-bound) |",
        f"| RegisterDevice, new devices (spread hwids, table ≥ {REGISTER_TABLE_FLOOR // 1000} k rows), 4 × 16 = 64 in flight "
        f"(calls/s) | {number(f['pw_register_new'], 'rps')} "
        f"| raw SQLite ceiling (Scripts/sqlite-ceiling: WAL, synchronous=FULL, 64 rows per transaction, "
        f"same spread keys, same table size) "
        f"| {side(f['pw_register_new'], 'ceiling_rps')} "
        f"| {own_ratio(f['pw_register_new'])} | ≥ 0.8× |",
        f"| RegisterDevice, unchanged re-register of a pool of {REGISTER_POOL:,}, 4 × 16 (calls/s) "
        f"| {number(f['pw_register_pool'], 'rps')} | — | — | — | ≥ 100 k/s |",
        f"| SyncCategories, matching version, 4 × 16 (calls/s) | {number(f['pw_sync'], 'rps')} "
        f"| pushwired Ping 4 × 16, right after | "
        f"{side(f['pw_sync'], 'ping_rps')} "
        f"| {own_ratio(f['pw_sync'])} | ≥ 0.8× |",
        f"| APNs gateway: {APNS_COUNT:,} POSTs to nghttpd over TLS, 2 conns × 100 streams (req/s) "
        f"| {number(f['apns'], 'rps')} | h2load, same server and load "
        f"| {side(f['apns'], 'h2load_rps')} "
        f"| {own_ratio(f['apns'])} | ≥ 0.6× |",
        f"| FCM gateway: {APNS_COUNT:,} FCM sends to nghttpd over TLS, 2 conns × 100 streams (req/s) "
        f"| {number(f['fcm'], 'rps')} | h2load, same server and load "
        f"| {side(f['fcm'], 'h2load_rps')} "
        f"| {own_ratio(f['fcm'])} | ≥ 0.6× |",
        f"| CreateMessage over RPC: 1 notification to {SEND_DEVICES} explicit devices, 4 × 16 (calls/s) "
        f"| {number(f['pw_send'], 'rps')}{send_backlog(f['pw_send'])} | — | — | — | ≥ 10 k/s |",
        *http_rows(f["http"]),
        fanout_row(fanout),
    ]
    lines += ["", "1-minute load average right after each figure (the machine is shared): "
              + ", ".join(f"{name} {load:.2f}" for name, load in loads.items()) + "."]
    lines += ["", "Codec microbenchmark (`pushwire-codec-bench`; see its own section):", "", "```",
              codec_output.strip() or "n/a", "```"]
    return "\n".join(lines) + "\n"


def write_doc(block):
    os.makedirs(os.path.dirname(DOC), exist_ok=True)
    text = open(DOC).read() if os.path.exists(DOC) else "# Pushwire benchmarks\n"
    section = f"{BEGIN}\n{block}{END}"
    if BEGIN in text and END in text:
        start, end = text.index(BEGIN), text.index(END) + len(END)
        text = text[:start] + section + text[end:]
    else:
        text = text.rstrip("\n") + "\n\n## Suite (Scripts/bench)\n\n" + section + "\n"
    with open(DOC, "w") as f:
        f.write(text)
    log(f"wrote {os.path.relpath(DOC, ROOT)}")
