"""`--multi-server`: two pushwired servers on one throw-away PostgreSQL (MultiServerSetup): the
caches' figures, the shared fan-out and CreateMessage."""

import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time

from .common import REGISTER_POOL, ROOT, log, run
from .peers import pushwire_bench
from .postgres import find_pgbench, pgbench_upserts, postgres_cpu, psql_value, upsert_script
from .servers import cpu_seconds, start


class MultiServerSetup:
    """One fresh PostgreSQL cluster (Scripts/postgres start: fsync and synchronous_commit on) and two
    pushwired servers on it (A and B, `--sink /dev/null`, one admin token), shared by every
    `--multi-server` figure: `with MultiServerSetup(pushwired) as setup:` starts them, and leaving
    the block stops them and removes the cluster."""

    def __init__(self, pushwired_binary):
        self.pushwired_binary = pushwired_binary
        self.cluster, self.servers, self.directories = None, [], []
        self.admin = "bench-admin-" + os.urandom(8).hex()
        self.url = None

    def __enter__(self):
        try:
            out = run([os.path.join(ROOT, "Scripts", "postgres"), "start"], 120).split("\n")
            self.url, self.cluster = out[0].strip(), out[1].strip()
            for name in ("A", "B"):
                directory = tempfile.mkdtemp(prefix=f"pushwire-bench-ms{name}-")
                self.directories.append(directory)
                server = start(f"pushwired {name} (PostgreSQL)", [
                    self.pushwired_binary, "--listen", "127.0.0.1:0", "--data-dir", directory, "--database-url", self.url,
                    "--admin-token", self.admin, "--sink", "/dev/null", "--log-level", "warning"])
                if not server:
                    raise RuntimeError(f"pushwired {name} on PostgreSQL did not start")
                self.servers.append(server)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *_):
        for server in self.servers:
            server.stop()
        self.servers = []
        if self.cluster:
            subprocess.run([os.path.join(ROOT, "Scripts", "postgres"), "stop", self.cluster], capture_output=True)
            self.cluster = None
        for directory in self.directories:
            shutil.rmtree(directory, ignore_errors=True)
        self.directories = []
        return False


def multi_server_blocks(bench, pushwired_binary, options):
    """Every `--multi-server` figure on one setup (MultiServerSetup): the caches' figures first (on a
    small devices table), then the fan-out and CreateMessage; prints both tables."""
    try:
        with MultiServerSetup(pushwired_binary) as setup:
            cache = multi_server_cache_figures(bench, setup, options.seconds, options.warmup, options.runs)
            figures = multi_server_figures(bench, setup, options.fanout or 1_000_000, options.seconds, options.warmup)
    except Exception as error:  # noqa: BLE001 - reported, not fatal
        cache = figures = f"n/a ({error})"
    print(multi_server_block(figures, options))
    print(multi_server_cache_block(cache, options))


def reports_of_both(commands, timeout):
    """Runs the pushwire-bench `commands` at once (one per server) and returns their --json reports,
    in order; raises with the first failing one's error output."""
    processes = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for command in commands]
    reports = []
    for command, process in zip(commands, processes):
        output, errors = process.communicate(timeout=timeout)
        if process.returncode != 0:
            raise RuntimeError(f"pushwire-bench {command[1]} exited {process.returncode}: {errors.strip()[-300:]}")
        reports.append(json.loads(output))
    return reports


# The messages scheduled or sending: the outbox holds a row for each of them and for no other
# (PostgresOutbox). Counted in `messages` by status it was a sequential scan of every message,
# whose CPU (about 1 µs a message created) went into the figure.
UNDELIVERED = "SELECT count(*) FROM message_outbox"
# PostgreSQL's checkpoints (started, as pg_stat_bgwriter counts them) and WAL written so far:
# its bytes, records, full-page images and flushes.
CHECKPOINTS_AND_WAL = ("SELECT concat_ws(' ', (SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter), "
                       "wal_bytes, wal_records, wal_fpi, wal_sync) FROM pg_stat_wal")


def sends_until_delivered(commands, setup, timeout):
    """Runs the pushwire-bench `send` commands at once (one per server of `setup`), then waits (at
    most a minute more) until no message is left scheduled or sending, so that the CPU counted is
    that of every message created, delivery included, and what bounds the rate reads the same on
    a busy host. Returns the reports; the messages in the database and those undelivered as the
    sends ended; the messages created, those still undelivered after the wait and how long it took;
    the CPU a message created (µs) of the two servers and of every postgres process; the
    checkpoints started meanwhile and the WAL a message created (bytes, records, full-page
    images, flushes), which it also logs."""
    (a, b), url = setup.servers, setup.url
    before = int(psql_value(url, "SELECT count(*) FROM messages"))
    wal_before = [int(value) for value in psql_value(url, CHECKPOINTS_AND_WAL).split()]
    cpu_before = cpu_seconds(a.process.pid) + cpu_seconds(b.process.pid), postgres_cpu()
    reports = reports_of_both(commands, timeout)
    backlog = int(psql_value(url, UNDELIVERED))
    total = int(psql_value(url, "SELECT count(*) FROM messages"))
    ended = time.time()
    left = backlog
    while time.time() < ended + 60 and left > 0:
        time.sleep(0.2)
        left = int(psql_value(url, UNDELIVERED))
    drained = time.time() - ended
    cpu_after = cpu_seconds(a.process.pid) + cpu_seconds(b.process.pid), postgres_cpu()
    checkpoints, *wal = [int(value) - then for value, then in zip(psql_value(url, CHECKPOINTS_AND_WAL).split(), wal_before)]
    created = max(1, total - before)
    wal = dict(zip(("bytes", "records", "images", "flushes"), (value / created for value in wal)))
    log(f"while the sends ran and drained: {checkpoints} checkpoint(s) started; WAL a message created: {wal['bytes']:,.0f} "
        f"bytes, {wal['records']:.1f} records, {wal['images']:.2f} full-page images, {wal['flushes']:.3f} flushes")
    return {"reports": reports, "backlog": backlog, "messages": total, "created": created, "left": left, "drained_s": drained,
            "checkpoints": checkpoints, "wal": wal,
            "servers_us": (cpu_after[0] - cpu_before[0]) / created * 1e6,
            "postgres_us": (cpu_after[1] - cpu_before[1]) / created * 1e6}


def multi_server_cache_figures(bench, setup, seconds, warmup, runs):
    """On the two servers of `setup`, `runs` times each, alternating where there is a peer:
    - RegisterDevice of new devices, two pushwire-bench processes at once, 2 × 16 against each
      server (64 in flight in all), against `pgbench -M prepared -c 64` of the same upsert;
    - re-registering a pool of unchanged devices, 4 × 16, against each server alone;
    - a category change through B timed until A serves it (`pushwire-bench propagation`).
    Returns the medians, or why they could not be measured."""
    script = None
    servers, url, admin = setup.servers, setup.url, setup.admin
    try:
        pgbench = find_pgbench()
        if not pgbench:
            return "n/a (no pgbench: apt install postgresql)"
        script = upsert_script()
        common = ["--admin-token", admin, "--yes"]
        new, upserts, pools, propagation = [], [], {"A": [], "B": []}, []
        for index in range(runs):
            log(f"measuring RegisterDevice of new devices through A and B at once, run {index + 1} of {runs}")
            reports = reports_of_both([
                [bench, "register", "--target", server.address, "--connections", "2", "--concurrency", "16",
                 "--duration", f"{seconds}s", "--warmup", f"{warmup}s", "--json"] + common
                for server in servers], seconds + warmup + 120)
            if any(report["errors"] for report in reports):
                raise RuntimeError(f"register through two servers: {[report['errors'] for report in reports]} errors")
            new.append({"rps": sum(report["requests_per_second"] for report in reports),
                        "p99_us": max(report["latency"]["p99_us"] for report in reports)})
            log(f"measuring pgbench -M prepared -c 64, run {index + 1} of {runs}")
            upserts.append(pgbench_upserts(pgbench, script.name, url, seconds))
            for name, server in zip(("A", "B"), servers):
                log(f"measuring re-registration of unchanged devices on {name}, run {index + 1} of {runs}")
                pool = pushwire_bench(bench, "register", server.address, 4, 16, seconds, warmup,
                                      common + ["--pool", str(REGISTER_POOL)])
                if pool["errors"]:
                    raise RuntimeError(f"re-registration on {name}: {pool['errors']} errors")
                pools[name].append(pool)
            log(f"measuring category changes through B served by A, run {index + 1} of {runs}")
            propagation.append(json.loads(run(
                [bench, "propagation", "--from", servers[1].address, "--to", servers[0].address,
                 "--admin-token", admin, "--changes", "300", "--json"], 600)))
        register_rps = statistics.median(r["rps"] for r in new)
        pgbench_tps = statistics.median(upserts)
        return {"rps": register_rps, "p99_us": statistics.median(r["p99_us"] for r in new), "pgbench_tps": pgbench_tps,
                "ratio": register_rps / pgbench_tps,
                "pool": {name: {"rps": statistics.median(p["rps"] for p in runs_),
                                "p99_us": statistics.median(p["p99_us"] for p in runs_)} for name, runs_ in pools.items()},
                "propagation": {key: statistics.median(p[key] for p in propagation)
                                for key in ("p50_us", "p90_us", "p99_us", "max_us")},
                "changes": sum(p["changes"] for p in propagation), "runs": runs, "load": os.getloadavg()[0]}
    except Exception as error:  # noqa: BLE001 - reported, not fatal
        return f"n/a ({error})"
    finally:
        if script:
            os.unlink(script.name)


def multi_server_cache_block(figure, options):
    """The two-server rows, as a small table of their own."""
    header = "| Figure (two pushwired, one PostgreSQL) | pushwired | peer | peer's figure | ratio | target |\n|---|---|---|---|---|---|"
    if isinstance(figure, str):
        return f"{header}\n| all | {figure} | — | — | — | — |"
    pool, prop = figure["pool"], figure["propagation"]
    rows = [
        f"| RegisterDevice, new devices, 2 × 16 through each server (64 in flight), calls/s | {figure['rps']:,.0f} "
        f"(p99 {figure['p99_us']:,.0f} µs) | `pgbench -M prepared -c 64 -j 2`: the same single-row upsert, same table, "
        f"same database | {figure['pgbench_tps']:,.0f} | {figure['ratio']:.2f}× | ≥ 1.5× |",
    ]
    for name in ("A", "B"):
        rows.append(f"| RegisterDevice, unchanged devices ({REGISTER_POOL:,} re-registered), 4 × 16, server {name} alone, "
                    f"calls/s | {pool[name]['rps']:,.0f} (p99 {pool[name]['p99_us']:,.0f} µs) | — | — | — | ≥ 300k |")
    rows.append(f"| A category change through B served by A (SyncCategories), latency | p50 {prop['p50_us']:,.0f} µs, "
                f"p90 {prop['p90_us']:,.0f} µs, p99 {prop['p99_us']:,.0f} µs, max {prop['max_us']:,.0f} µs "
                f"({figure['changes']} changes) | — | — | — | p99 ≤ 50 ms |")
    return (header + "\n" + "\n".join(rows) + "\n\n"
            f"Median of {figure['runs']} run(s) of {options.seconds:g} s each (propagation: 300 changes a run); load "
            f"average at the end {figure['load']:.2f}. Command: `Scripts/bench --multi-server`.")


def multi_server_figures(bench, setup, devices, seconds, warmup):
    """On the two servers of `setup` (A, B): (1) `pushwire-bench fanout` through A, one message to
    `devices` devices in 3 languages, timed from CreateMessage to done — cut into shared batches
    (`--fanout-batch`, 20,000 devices) that both servers claim; (2) `pushwire-bench send` through A and
    through B at once, 2 connections × 16 each (64 in flight), CreateMessage to 10 devices each,
    their rates summed, and the messages still scheduled or sending in the database as they end.
    Returns the figures, or why they could not be measured."""
    (a, b), url, admin = setup.servers, setup.url, setup.admin
    try:
        log(f"measuring the fan-out to {devices} devices on two servers (registration first)")
        fanout = json.loads(run([bench, "fanout", "--target", a.address, "--admin-token", admin, "--yes", "--devices", str(devices),
                                 "--server-pid", str(a.process.pid), "--json"], max(900, devices // 500)))
        # Who fanned out what: each shared batch keeps its last holder (a message too small to be
        # cut keeps its own lease owner), so the share of each server is counted in batches.
        holders = psql_value(url, "SELECT string_agg(COALESCE(lease_owner, ''), ' ') FROM message_batches "
                                  "WHERE message_id = (SELECT max(id) FROM messages)") or \
            psql_value(url, "SELECT COALESCE(lease_owner, '') FROM messages ORDER BY id DESC LIMIT 1")
        pids = {str(a.process.pid): "A", str(b.process.pid): "B"}
        shares = {name: sum(1 for holder in holders.split() if f"-{pid}-" in holder) for pid, name in pids.items()}
        fanout["server"] = " + ".join(f"{name} {count}" for name, count in shares.items()) + " batches"
        log("measuring CreateMessage to 10 devices through both servers, 2 × 16 each")
        command = lambda target: [  # noqa: E731
            bench, "send", "--target", target.address, "--connections", "2", "--concurrency", "16",
            "--duration", f"{seconds}s", "--warmup", f"{warmup}s", "--json", "--admin-token", admin, "--yes", "--devices", "10"]
        sends = sends_until_delivered([command(t) for t in (a, b)], setup, seconds + warmup + 300)
        reports = sends["reports"]
        send = {"rps": sum(r["requests_per_second"] for r in reports),
                "per_server": [r["requests_per_second"] for r in reports],
                "p99_us": max(r["latency"]["p99_us"] for r in reports),
                "errors": sum(sum(r["errors"].values()) if isinstance(r["errors"], dict) else r["errors"] for r in reports),
                "backlog": sends["backlog"], "messages": sends["messages"], "drained_s": sends["drained_s"],
                "servers_us": sends["servers_us"], "postgres_us": sends["postgres_us"]}
        return {"fanout": fanout, "send": send, "load": os.getloadavg()[0]}
    except Exception as error:  # noqa: BLE001 - reported, not fatal
        return f"n/a ({error})"


def multi_server_block(figure, options):
    """The two-servers-on-PostgreSQL rows, as a small table of their own."""
    header = "| Figure | pushwired | target |\n|---|---|---|"
    if isinstance(figure, str):
        return f"{header}\n| Two servers on one PostgreSQL | {figure} | — |"
    fanout, send = figure["fanout"], figure["send"]
    return (f"{header}\n"
            f"| One message to {fanout['sent']:,} devices in 3 languages, NullGateway, two servers on PostgreSQL (s) "
            f"| {fanout['seconds']:.2f} s ({fanout['devices_per_second']:,.0f} devices/s; fanned out by "
            f"{fanout['server']}) | ≤ 3 s |\n"
            f"| CreateMessage to 10 devices, 2 × 16 through each of two servers on PostgreSQL (calls/s) "
            f"| {send['rps']:,.0f} ({' + '.join(f'{r:,.0f}' for r in send['per_server'])}; p99 {send['p99_us']:,.0f} µs; "
            f"{send['errors']} errors; {send['backlog']:,} of {send['messages']:,} messages undelivered at the end, "
            f"all delivered {send['drained_s']:.1f} s later; CPU a message, delivery included: servers "
            f"{send['servers_us']:.1f} µs, PostgreSQL {send['postgres_us']:.1f} µs) | ≥ 15 k/s |\n\n"
            f"One run of {options.seconds:g} s; load average at the end {figure['load']:.2f}. "
            f"Command: `Scripts/bench --only-extra --multi-server{f' --fanout {options.fanout}' if options.fanout else ''}`.")
