"""The HTTP door's rows (Scripts/bench-http: wrk against pushwired and nginx, the /metrics scrapes)."""

import json
import os
import shutil

from .common import ROOT, run
from .numbers import number


def http_door(pushwired_binary, bench, runs, seconds):
    """Scripts/bench-http --json: the HTTP door's rows (SyncCategories JSON and Pushwoosh
    registerDevice against nginx `return 200`, wrk at 64 keep-alive connections, alternating in one
    run; the /metrics scrapes). It takes the medians of its own `runs` runs itself."""
    if not shutil.which("wrk") or not (shutil.which("nginx") or os.path.exists("/usr/sbin/nginx")):
        raise RuntimeError("wrk/nginx missing (apt-get install wrk nginx-light)")
    out = run([os.path.join(ROOT, "Scripts", "bench-http"), "--json", "--metrics-cost", "--pushwired", pushwired_binary, "--bench", bench,
               "--runs", str(runs), "--duration", str(max(1, round(seconds)))], 3 * runs * (seconds + 30) + 300)
    return json.loads(out.strip().splitlines()[-1])


def http_rows(figure):
    """The HTTP door's rows for the table (same columns)."""
    name_sync = "HTTP: POST /pushwire.v1.Devices/SyncCategories, JSON, matching version, wrk 64 keep-alive conns (req/s)"
    name_register = "HTTP: Pushwoosh registerDevice of an unchanged device, wrk 64 keep-alive conns (req/s)"
    name_scrape = "HTTP: GET /metrics with ≥ 1,000 series (`pushwire-bench metrics-server`), ms per scrape"
    name_pushwired = "HTTP: GET /metrics of pushwired after the rows above, ms per scrape"
    if isinstance(figure, str):
        return [f"| {name_sync} | {figure} | — | — | — | ≥ 0.5× |", f"| {name_register} | {figure} | — | — | — | ≥ 0.3× |",
                f"| {name_scrape} | {figure} | — | — | — | < 5 ms |"]
    peer = f"nginx `return 200` with a fixed JSON body of the same size ({figure['nginx_answer_bytes']} B), same wrk"
    nginx = number({"rps": figure["nginx_rps"]}, "rps")
    many, own = figure["many_series_scrape"], figure["pushwired_scrape"]
    return [
        f"| {name_sync} | {number({'rps': figure['sync_rps']}, 'rps')} | {peer} | {nginx} "
        f"| {figure['sync_rps'] / figure['nginx_rps']:.2f}× | ≥ 0.5× |",
        f"| {name_register} | {number({'rps': figure['register_rps']}, 'rps')} | the same nginx | {nginx} "
        f"| {figure['register_rps'] / figure['nginx_rps']:.2f}× | ≥ 0.3× |",
        f"| {name_scrape} | {many['median_ms']:.2f} ms (p90 {many['p90_ms']:.2f} ms, fastest {many.get('min_ms', 0):.2f} ms; {many['series']:,} series, "
        f"{many['bytes']:,} B) | — | — | — | < 5 ms |",
        f"| {name_pushwired} | {own['median_ms']:.2f} ms (p90 {own['p90_ms']:.2f} ms; {own['series']:,} series) "
        f"| — | — | — | — |",
    ] + ([
        f"| Cost of recording metrics: HTTP SyncCategories as above (req/s) | {number({'rps': figure['sync_rps']}, 'rps')} "
        f"| a second pushwired `--call-metrics off`, alternating | {number({'rps': figure['sync_off_rps']}, 'rps')} "
        f"| {figure['sync_rps'] / figure['sync_off_rps']:.2f}× | ≈ 1× |",
        f"| Cost of recording metrics: binary door Ping 4 × 16 (calls/s) | {number({'rps': figure['ping_rps']}, 'rps')} "
        f"| the same pushwired `--call-metrics off` | {number({'rps': figure['ping_off_rps']}, 'rps')} "
        f"| {figure['ping_rps'] / figure['ping_off_rps']:.2f}× | ≈ 1× |",
    ] if figure.get("sync_off_rps") and figure.get("ping_off_rps") else [])
