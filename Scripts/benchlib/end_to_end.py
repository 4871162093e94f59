"""`--end-to-end N`: one message to N devices through both gateways to two nghttpd, against h2load
on the same servers (issue 18's end-to-end figure)."""

import json
import os
import re
import shutil
import subprocess
import tempfile
import time

from .common import ROOT, log, run
from .servers import cpu_seconds, free_port, residentKiB, start


def h2load_pair(runs):
    """Runs h2load commands at once, each bounded to 10 minutes by coreutils' timeout (whose rusage
    includes the h2load it waited for); returns (wall seconds, [(stdout, cpu seconds)]) of each."""
    started = time.time()
    processes = [subprocess.Popen(["timeout", "600"] + command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                 for command in runs]
    results = []
    for process in processes:
        output = process.stdout.read()
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            raise RuntimeError(f"h2load exited {process.returncode}: {output[-300:]}")
        results.append((output, usage.ru_utime + usage.ru_stime))
    return time.time() - started, results


# What the doubles answer as: APNs' team, key and topic (nghttpd checks none of them).
E2E_APNS = "TEAM123456:KEY1234567:com.example.pushwire"


# How many push tokens the iOS devices share (each device still gets its own request and record).
E2E_APNS_TOKENS = 1000


def end_to_end_figure(bench, pushwired_binary, devices):
    """Issue 18's end-to-end figure. Two nghttpd processes, one thread each, stand in for APNs
    (200 to POST /3/device/<token> for the E2E_APNS_TOKENS tokens the iOS devices cycle over) and for FCM (200 to POST
    /v1/projects/pushwire-test/messages:send, an access token to POST /token). A pushwired with
    --apns-url/--fcm-url pointing at them and a fresh data directory gets an application with
    both credentials; `pushwire-bench fanout --android-half` registers `devices` devices (half iOS,
    half Android, 3 languages), sends one message and polls GetMessageDetails until every outcome
    is recorded. Then two h2load runs against the same two servers at once, devices/2 requests
    each, 2 connections x 100 streams each (the gateways' defaults), with bodies of the size the
    gateways sent. Returns the figures, or why they could not be measured."""
    for tool in ["nghttpd", "h2load"]:
        if not shutil.which(tool):
            return f"n/a (no {tool}: apt-get install nghttp2-server nghttp2-client)"
    work = tempfile.mkdtemp(prefix="pushwire-bench-e2e-")
    servers = []
    try:
        certs = os.path.join(work, "certs")
        run([os.path.join(ROOT, "Scripts", "apns-double", "make-certs"), certs], 120)
        apns_port, fcm_port = free_port(), free_port()
        account_dir = os.path.join(work, "account")
        run([os.path.join(ROOT, "Scripts", "fcm-double", "make-account"), account_dir, str(fcm_port)], 120)
        fcm_docs = os.path.join(work, "fcm")
        os.makedirs(os.path.join(fcm_docs, "v1", "projects", "pushwire-test"))
        with open(os.path.join(fcm_docs, "token"), "w") as f:
            f.write('{"access_token":"ya29.bench","expires_in":3600,"token_type":"Bearer"}')
        open(os.path.join(fcm_docs, "v1", "projects", "pushwire-test", "messages:send"), "w").close()
        # nghttpd answers a POST with the file at its path. iOS devices' tokens cycle over
        # E2E_APNS_TOKENS values, one empty file each (`--echo-upload` would answer any path, but it
        # writes every body to a file in /tmp first: 360 µs of CPU a request on this disk).
        apns_docs = os.path.join(work, "apns")
        os.makedirs(os.path.join(apns_docs, "3", "device"))
        for index in range(E2E_APNS_TOKENS):
            open(os.path.join(apns_docs, "3", "device", f"{index:064x}"), "w").close()
        key, cert, ca = (os.path.join(certs, name) for name in ["server.key", "server.pem", "ca.pem"])
        apns = start("nghttpd (APNs)", ["nghttpd", "--address=127.0.0.1", f"--htdocs={apns_docs}", "-n", "1",
                                        str(apns_port), key, cert], wait_line=False, port=apns_port)
        fcm = start("nghttpd (FCM)", ["nghttpd", "--address=127.0.0.1", f"--htdocs={fcm_docs}", "-n", "1",
                                      str(fcm_port), key, cert], wait_line=False, port=fcm_port)
        servers += [s for s in [apns, fcm] if s]
        if not (apns and fcm):
            return "n/a (nghttpd did not start)"
        time.sleep(0.5)
        data_dir = os.path.join(work, "data")
        server = start("pushwired (end to end)", [pushwired_binary, "--listen", "127.0.0.1:0", "--data-dir", data_dir,
                                                  "--log-level", "warning",
                                                  "--apns-url", f"https://127.0.0.1:{apns_port}", "--apns-ca-file", ca,
                                                  "--fcm-url", f"https://127.0.0.1:{fcm_port}", "--fcm-ca-file", ca])
        if not server:
            return "n/a (pushwired did not start)"
        servers.append(server)
        log(f"end to end: {devices} devices (registration first), then h2load against the same servers")
        load = os.getloadavg()[0]
        doubles_before = [cpu_seconds(apns.process.pid), cpu_seconds(fcm.process.pid)]
        result = json.loads(run([bench, "fanout", "--target", server.address, "--data-dir", data_dir, "--devices", str(devices),
                                 "--android-half", "--apns-token-pool", str(E2E_APNS_TOKENS),
                                 "--apns", E2E_APNS + ":" + os.path.join(certs, "app.p8"),
                                 "--fcm-account", os.path.join(account_dir, "account.json"),
                                 "--server-pid", str(server.process.pid), "--timeout", "900s", "--json"],
                                max(1200, devices // 500)))
        doubles_fanout = [cpu_seconds(apns.process.pid) - doubles_before[0], cpu_seconds(fcm.process.pid) - doubles_before[1]]
        result["rss_peak_mib"] = result.get("rss_before_mib", 0) + result.get("rss_growth_mib", 0)
        result["rss_hwm_mib"] = (residentKiB(server.process.pid, "VmHWM:") or 0) / 1024
        server.stop()

        # The bodies the gateways sent: the message's payload in English (the longest of its three
        # languages is within a few bytes), with a message code, and FCM's with the device token.
        code = "3F9A1-0C77E2B4-91D0A6FF"
        apns_body = json.dumps({"aps": {"alert": {"title": "Shop", "body": "Your order has shipped"}}, "pw_msg": code},
                               separators=(",", ":"))
        fcm_token = "fo1:APA91b" + "x" * 140
        fcm_body = json.dumps({"message": {"token": fcm_token, "data": {"pw_msg": code, "pw_title": "Shop",
                                                                          "pw_body": "Your order has shipped"},
                                           "android": {"priority": "HIGH"}}}, separators=(",", ":"))
        bodies = os.path.join(work, "bodies")
        os.makedirs(bodies)
        for name, body in [("apns.json", apns_body), ("fcm.json", fcm_body)]:
            with open(os.path.join(bodies, name), "w") as f:
                f.write(body)
        half = devices // 2
        doubles_before = [cpu_seconds(apns.process.pid), cpu_seconds(fcm.process.pid)]
        wall, outputs = h2load_pair([
            ["h2load", "-n", str(half), "-c", "2", "-m", "100", "-t", "1", "-d", os.path.join(bodies, "apns.json"),
             "-H", "apns-topic: com.example.pushwire", "-H", "apns-push-type: alert", "-H", "apns-priority: 10",
             "-H", "authorization: bearer eyJhbGciOiJFUzI1NiIsImtpZCI6IktFWTEyMzQ1NjcifQ.eyJpc3MiOiJURUFNMTIzNDU2IiwiaWF0IjoxfQ.sig",
             f"https://127.0.0.1:{apns_port}/3/device/{1:064x}"],
            ["h2load", "-n", str(devices - half), "-c", "2", "-m", "100", "-t", "1", "-d", os.path.join(bodies, "fcm.json"),
             "-H", "authorization: Bearer ya29.bench", "-H", "content-type: application/json",
             f"https://127.0.0.1:{fcm_port}/v1/projects/pushwire-test/messages:send"],
        ])
        doubles_h2load = [cpu_seconds(apns.process.pid) - doubles_before[0], cpu_seconds(fcm.process.pid) - doubles_before[1]]
        succeeded = 0
        for output, _ in outputs:
            match = re.search(r"requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded", output)
            if not match:
                raise RuntimeError(f"unexpected h2load output: {output[-300:]}")
            succeeded += int(match.group(1))
        h2load_rps = devices / wall
        return dict(result, load=load, h2load_rps=h2load_rps, h2load_seconds=wall, h2load_succeeded=succeeded,
                    h2load_cpu_seconds=sum(cpu for _, cpu in outputs), doubles_fanout_cpu=doubles_fanout,
                    doubles_h2load_cpu=doubles_h2load, ratio=result["devices_per_second"] / h2load_rps,
                    apns_body_bytes=len(apns_body), fcm_body_bytes=len(fcm_body), devices=devices)
    except Exception as error:  # noqa: BLE001 - reported, not fatal
        return f"n/a ({error})"
    finally:
        for server in servers:
            server.stop()
        shutil.rmtree(work, ignore_errors=True)


def end_to_end_block(figure):
    """Issue 18's end-to-end figure, as a small table of its own."""
    header = "| Figure | pushwired | peer | peer's figure | ratio | target |\n|---|---|---|---|---|---|"
    if isinstance(figure, str):
        return f"{header}\n| One message to 1 M devices through APNs and FCM | {figure} | — | — | — | ≥ 0.4×, RSS < 200 MiB |"
    n = figure["devices"]
    us = lambda seconds, count: seconds * 1e6 / max(1, count)  # noqa: E731
    apns_fan, fcm_fan = figure["doubles_fanout_cpu"]
    apns_h2, fcm_h2 = figure["doubles_h2load_cpu"]
    failures = ", ".join(f"{reason} {count}" for reason, count in figure.get("failures", {}).items()) or "none"
    return (f"{header}\n| One message to {n:,} devices (half iOS, half Android, 3 languages) through pushwired, both "
            f"gateways, to nghttpd as APNs and as FCM; every outcome recorded (devices/s) "
            f"| {figure['devices_per_second']:,.0f} ({figure['sent']:,} sent in {figure['seconds']:.1f} s; failed "
            f"{figure['failed']:,}: {failures}) | h2load ×2 at once against the same two servers, {n // 2:,} requests "
            f"each, 2 conns × 100 streams each, {figure['apns_body_bytes']} B / {figure['fcm_body_bytes']} B bodies "
            f"| {figure['h2load_rps']:,.0f} ({figure['h2load_succeeded']:,} succeeded in {figure['h2load_seconds']:.1f} s) "
            f"| {figure['ratio']:.2f}× | ≥ 0.4× |\n"
            f"| pushwired RSS during the fan-out | {figure.get('rss_before_mib', 0):.0f} MiB before, peak "
            f"{figure['rss_peak_mib']:.0f} MiB (+{figure.get('rss_growth_mib', 0):.0f} MiB; VmHWM over the run, "
            f"registration included, {figure['rss_hwm_mib']:.0f} MiB) | — | — | — | growth < 200 MiB |\n\n"
            f"CPU per request: pushwired {us(figure.get('server_cpu_seconds', 0), figure['sent']):.1f} µs per device "
            f"(store writes, rendering, both gateways, TLS); the APNs nghttpd {us(apns_fan, n // 2):.1f} µs and the FCM "
            f"nghttpd {us(fcm_fan, n - n // 2):.1f} µs per request during the fan-out, {us(apns_h2, n // 2):.1f} µs and "
            f"{us(fcm_h2, n - n // 2):.1f} µs under h2load; h2load {us(figure['h2load_cpu_seconds'], n):.1f} µs per "
            f"request. Load average at the start {figure['load']:.1f}. Command: `Scripts/bench --only-extra --end-to-end {n}`.")
