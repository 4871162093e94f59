"""What every part of Scripts/bench shares: paths, constants, logging, running a command, the Debian
packages, the release build and the gRPC peer's build, medians, the machine's description."""

import os
import platform
import statistics
import subprocess
import sys
from datetime import datetime, timezone


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOC = os.path.join(ROOT, "docs", "BENCHMARKS.md")
BEGIN, END = "<!-- bench:begin (written by Scripts/bench --write) -->", "<!-- bench:end -->"
REGISTER_POOL = 10_000
SEND_DEVICES = 10
APNS_COUNT = 50_000
PACKAGES = ["redis-server", "redis-tools", "libgrpc++-dev", "protobuf-compiler-grpc", "libprotobuf-dev",
            "g++", "pkg-config", "protobuf-compiler", "nghttp2-client", "nghttp2-server", "gcc", "libsqlite3-dev",
            "postgresql", "libpq-dev", "wrk", "nginx-light"]


def log(message):
    print(f"bench: {message}", file=sys.stderr, flush=True)


def run(command, timeout, **kwargs):
    """Runs a command, returns its stdout; raises on failure or timeout."""
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout, **kwargs)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {result.returncode}: {result.stderr.strip()[-400:]}")
    return result.stdout


def install_packages():
    missing = [p for p in PACKAGES
               if "install ok installed" not in subprocess.run(
                   ["dpkg-query", "-W", "-f=${Status}", p], capture_output=True, text=True).stdout]
    if not missing:
        return
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    log(f"installing {' '.join(missing)}")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(sudo + ["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(sudo + ["apt-get", "install", "-y", "-qq"] + missing, check=True, env=env,
                   stdout=subprocess.DEVNULL)


def build(scratch, products=("pushwire-bench", "pushwired", "pushwire-codec-bench", "pushwire-apns-bench")):
    """Builds the release products; returns the bin directory."""
    base = ["swift", "build", "-c", "release"] + (["--scratch-path", scratch] if scratch else [])
    for product in products:
        log(f"building {product} (release)")
        result = subprocess.run(base + ["--product", product], cwd=ROOT, capture_output=True, text=True)
        if result.returncode != 0:
            log(f"{product} did not build; its figures will be n/a\n{result.stdout[-1500:]}{result.stderr[-500:]}")
    return run(base + ["--show-bin-path"], 600, cwd=ROOT).strip()


def build_peers(out):
    script = os.path.join(ROOT, "Scripts", "bench-peers", "grpc-echo", "build")
    log("building the gRPC C++ echo peer")
    try:
        run([script, out], 900)
        return out
    except Exception as error:  # noqa: BLE001 - any failure just makes the gRPC figures n/a
        log(f"gRPC peer did not build: {error}")
        return None


# The devices table's size before the first measured registration: issue 5 sets the target against
# a table of 0.1–1 M rows, and a nearly empty table fits in a few pages of cache, which flatters
# both sides.
REGISTER_TABLE_FLOOR = 100_000


def median_of(runs, measure):
    """Runs `measure` `runs` times; returns the median of each number, or the error text."""
    results = []
    for _ in range(runs):
        try:
            results.append(measure())
        except Exception as error:  # noqa: BLE001 - reported in the table as n/a
            return f"n/a ({str(error).splitlines()[0][:120]})"
    return {key: statistics.median(r[key] for r in results) for key in results[0]}


def machine():
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()
    return {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpus": os.cpu_count(),
        "cpu": cpu,
        "kernel": platform.release(),
        "swift": swift[0] if swift else "unknown",
        "load": " ".join(f"{x:.2f}" for x in os.getloadavg()),
    }
