"""Processes started for a figure (a `listening on` line awaited, stopped at the end), free ports,
and what /proc says about a running process."""

import os
import re
import socket
import subprocess
import tempfile
import time

from .common import log


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A server process started for the suite, killed at the end."""

    def __init__(self, name, command, wait_line=True, port=None, cwd=None):
        self.name = name
        self.address = f"127.0.0.1:{port}" if port else None
        self.log = tempfile.NamedTemporaryFile(prefix=f"bench-{name}-", suffix=".log", delete=False)
        # Both streams to the log: the `listening on` line may come on either.
        self.process = subprocess.Popen(command, stdout=self.log, stderr=subprocess.STDOUT, cwd=cwd)
        if wait_line:
            try:
                self.address = self._read_listening_line(timeout=20)
            except Exception:
                self.stop()  # never leave a half-started server behind
                raise

    def _read_listening_line(self, timeout):
        deadline = time.time() + timeout
        while time.time() < deadline:
            with open(self.log.name, errors="replace") as f:
                text = f.read()
            match = re.search(r"listening on \[?([0-9a-fA-F:.]+)\]?:(\d+)", text)
            if match:
                return f"{match.group(1)}:{match.group(2)}"
            if self.process.poll() is not None:
                said = text.strip()[-300:] or "no output"
                raise RuntimeError(f"{self.name} exited {self.process.returncode} without listening ({said})")
            time.sleep(0.1)
        raise RuntimeError(f"{self.name} printed no 'listening on' line within {timeout}s")

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start(name, command, **kwargs):
    try:
        server = Server(name, command, **kwargs)
        log(f"{name} listening on {server.address}")
        return server
    except Exception as error:  # noqa: BLE001 - a missing server makes its figures n/a
        log(f"{name} unavailable: {error}")
        return None


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def cpu_seconds(pid):
    """User + system CPU seconds of a running process (/proc/PID/stat)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def until_idle(pid, poll=0.5, busy=0.03):
    """The process's CPU seconds once it has stopped working (under `busy` s of CPU in `poll` s)."""
    last = cpu_seconds(pid)
    while True:
        time.sleep(poll)
        now = cpu_seconds(pid)
        if now - last < busy: return now
        last = now


def residentKiB(pid, field):
    """A field of /proc/PID/status in KiB (VmRSS:, VmHWM:), or None."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field):
                    return int(line.split()[1])
    except OSError:
        return None
    return None
