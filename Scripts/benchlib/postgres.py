"""`--postgres`: RegisterDevice of new devices on a pushwired whose store is PostgreSQL, against
pgbench's single-row upsert on the same table; psql helpers."""

import glob
import os
import re
import shutil
import statistics
import subprocess
import tempfile

from .common import ROOT, log, run
from .peers import pushwire_bench
from .servers import cpu_seconds, start


# The single-row upsert pgbench runs: RegisterDevice's statement for one new device (a random hwid
# per call, as real devices' ids are), on the same table with the same indexes, as prepared statements.
PGBENCH_UPSERT = """\\set n random(1, 2000000000)
INSERT INTO devices (app_id, hwid, push_token, device_type, language, timezone, user_id, app_version, updated_at) VALUES (2147483647, 'pgbench-' || :client_id || '-' || :n, 'token', 1, 'en', 3600, '', '1.0', 0) ON CONFLICT (app_id, hwid) DO UPDATE SET push_token = excluded.push_token, device_type = excluded.device_type, language = excluded.language, timezone = excluded.timezone, user_id = excluded.user_id, app_version = excluded.app_version, updated_at = excluded.updated_at WHERE (devices.push_token, devices.device_type, devices.language, devices.timezone, devices.user_id, devices.app_version) IS DISTINCT FROM (excluded.push_token, excluded.device_type, excluded.language, excluded.timezone, excluded.user_id, excluded.app_version);
"""


def postgres_register_figure(bench, pushwired_binary, seconds, warmup, runs):
    """RegisterDevice of new devices, 4 × 16 = 64 in flight, on a pushwired whose store is a fresh
    PostgreSQL cluster (Scripts/postgres start, default settings: fsync and synchronous_commit on),
    then `pgbench -M prepared -c 64` running the same upsert on the same table of the same database,
    alternating, `runs` times each. Returns the medians and the ratio, or why it could not be measured."""
    cluster = None
    data_dir = tempfile.mkdtemp(prefix="pushwire-bench-pg-")
    server = None
    script = None
    try:
        out = run([os.path.join(ROOT, "Scripts", "postgres"), "start"], 120).split("\n")
        url, cluster = out[0].strip(), out[1].strip()
        server = start("pushwired (PostgreSQL)", [pushwired_binary, "--listen", "127.0.0.1:0", "--data-dir", data_dir,
                                                  "--database-url", url, "--log-level", "warning"])
        if not server:
            return "n/a (pushwired on PostgreSQL did not start)"
        pgbench = find_pgbench()
        if not pgbench:
            return "n/a (no pgbench: apt install postgresql)"
        script = upsert_script()
        registers, upserts = [], []
        for index in range(runs):
            log(f"measuring RegisterDevice on PostgreSQL, run {index + 1} of {runs}")
            registers.append(pushwire_bench(bench, "register", server.address, 4, 16, seconds, warmup,
                                            ["--data-dir", data_dir]))
            log(f"measuring pgbench -M prepared -c 64, run {index + 1} of {runs}")
            upserts.append(pgbench_upserts(pgbench, script.name, url, seconds))
        errors = sum(r["errors"] for r in registers)
        if errors:
            raise RuntimeError(f"register on PostgreSQL: {errors} errors")
        register_rps = statistics.median(r["rps"] for r in registers)
        pgbench_tps = statistics.median(upserts)
        return {"rps": register_rps, "p50_us": statistics.median(r["p50_us"] for r in registers),
                "p99_us": statistics.median(r["p99_us"] for r in registers), "pgbench_tps": pgbench_tps,
                "ratio": register_rps / pgbench_tps, "runs": runs, "load": os.getloadavg()[0]}
    except Exception as error:  # noqa: BLE001 - reported, not fatal
        return f"n/a ({error})"
    finally:
        if server:
            server.stop()
        if cluster:
            subprocess.run([os.path.join(ROOT, "Scripts", "postgres"), "stop", cluster], capture_output=True)
        if script:
            os.unlink(script.name)
        shutil.rmtree(data_dir, ignore_errors=True)


def find_pgbench():
    """pgbench on the PATH, or the newest in Debian's /usr/lib/postgresql/*/bin; None without one."""
    return shutil.which("pgbench") or next(
        (p for p in sorted(glob.glob("/usr/lib/postgresql/*/bin/pgbench"), reverse=True)), None)


def upsert_script():
    """PGBENCH_UPSERT in a temporary file (closed; the caller unlinks `.name`)."""
    script = tempfile.NamedTemporaryFile("w", prefix="pushwire-pgbench-", suffix=".sql", delete=False)
    script.write(PGBENCH_UPSERT)
    script.close()
    return script


def pgbench_upserts(pgbench, script, url, seconds):
    """`pgbench -M prepared -c 64 -j 2` of PGBENCH_UPSERT for `seconds`: its transactions per second."""
    text = run([pgbench, "-n", "-M", "prepared", "-c", "64", "-j", "2", "-T", str(max(1, round(seconds))),
                "-f", script, url], 600)
    match = re.search(r"tps = ([0-9.]+) \(without initial connection time\)", text)
    if not match:
        raise RuntimeError(f"unexpected pgbench output: {text[-300:]}")
    return float(match.group(1))


def postgres_block(figure, options):
    """The PostgreSQL row, as a small table of its own."""
    header = ("| Figure | pushwired | peer | peer's figure | ratio | target |\n|---|---|---|---|---|---|")
    name = "RegisterDevice, new devices, 4 × 16, store on PostgreSQL (calls/s)"
    if isinstance(figure, str):
        return f"{header}\n| {name} | {figure} | — | — | — | ≥ 1.5× |"
    return (f"{header}\n| {name} | {figure['rps']:,.0f} (p50 {figure['p50_us']:,.0f} µs, p99 {figure['p99_us']:,.0f} µs) "
            f"| `pgbench -M prepared -c 64 -j 2`: the same single-row upsert, same table, same database "
            f"| {figure['pgbench_tps']:,.0f} | {figure['ratio']:.2f}× | ≥ 1.5× |\n\n"
            f"Median of {figure['runs']} alternating run(s) of {options.seconds:g} s each; load average at the end "
            f"{figure['load']:.2f}. Command: `Scripts/bench --postgres`.")


def psql_value(url, query):
    """One value from PostgreSQL at `url`, through psql."""
    psql = shutil.which("psql") or next((p for p in sorted(glob.glob("/usr/lib/postgresql/*/bin/psql"), reverse=True)), None)
    if not psql:
        raise RuntimeError("no psql: apt install postgresql-client")
    return run([psql, "-Atc", query, url], 60).strip()


def postgres_cpu():
    """CPU seconds of every running process named postgres (a cluster's backends and workers: the
    benches run one cluster at a time)."""
    total = 0.0
    for path in glob.glob("/proc/[0-9]*"):
        try:
            with open(path + "/comm") as f:
                if f.read().startswith("postgres"):
                    total += cpu_seconds(int(path[6:]))
        except (OSError, ValueError):
            pass  # gone meanwhile
    return total
