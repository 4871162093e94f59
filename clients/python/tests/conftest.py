"""Shared fixtures: where the repository's golden vectors are, and a real `pushwired` started as a
subprocess for the integration tests (skipped, with the reason, when the binary is missing)."""
from __future__ import annotations

import http.client
import os
import re
import secrets
import shutil
import ssl
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture(scope="session")
def vectors_dir() -> Path:
    path = Path(os.environ.get("PUSHWIRE_VECTORS", REPO / "Tests" / "Vectors"))
    if not (path / "manifest.json").exists():
        pytest.skip(f"golden vectors not found: {path}/manifest.json is missing")
    return path


def find_pushwired() -> Path | None:
    """$PUSHWIRED, else the binary of the SwiftPM build in the repository (debug, then release)."""
    if os.environ.get("PUSHWIRED"):
        return Path(os.environ["PUSHWIRED"])
    for config in ("debug", "release"):
        candidate = REPO / ".build" / config / "pushwired"
        if candidate.exists():
            return candidate
    if shutil.which("swift"):
        try:
            out = subprocess.run(["swift", "build", "--show-bin-path"], cwd=REPO, capture_output=True,
                                 text=True, timeout=120)
            candidate = Path(out.stdout.strip()) / "pushwired"
            if out.returncode == 0 and candidate.exists():
                return candidate
        except (OSError, subprocess.TimeoutExpired):
            pass
    return None


class RunningServer:
    #: The client arguments that trust the server's TLS certificate; empty: clear text.
    tls: dict = {}

    def __init__(self, binary: Path, extra_args: list[str] | None = None):
        self.admin_token = secrets.token_hex(16)
        self.data_dir = tempfile.mkdtemp(prefix="pushwire-clients-")
        self.stderr_path = Path(self.data_dir) / "stderr.log"
        os.makedirs(Path(self.data_dir) / "data", mode=0o700)
        self._stderr = open(self.stderr_path, "wb")
        self.process = subprocess.Popen(
            [str(binary), "--listen", "127.0.0.1:0", "--data-dir", str(Path(self.data_dir) / "data"),
             "--admin-token", self.admin_token, *(extra_args or [])],
            stdout=subprocess.PIPE, stderr=self._stderr, text=True)
        found: list[tuple[str, int]] = []
        self.http_port: int | None = None
        self.plaintext_port: int | None = None

        def read_address() -> None:
            assert self.process.stdout is not None
            for line in self.process.stdout:
                # The HTTP door's line comes right after the RPC port's (unless --http-listen off).
                match = re.search(r"^HTTP listening on (\S+):(\d+)", line)
                if match:
                    self.http_port = int(match.group(2))
                    break
                match = re.search(r"^plaintext listening on (\S+):(\d+)", line)
                if match:
                    self.plaintext_port = int(match.group(2))
                match = re.search(r"^listening on (\S+):(\d+)", line)
                if match:
                    found.append((match.group(1).strip("[]"), int(match.group(2))))
            for _ in self.process.stdout:  # keep draining so the server never blocks on stdout
                pass

        threading.Thread(target=read_address, daemon=True).start()
        deadline = 30.0
        step = 0.05
        waited = 0.0
        import time
        while (not found or self.http_port is None) and waited < deadline and self.process.poll() is None:
            time.sleep(step)
            waited += step
        if not found:
            self.stop()
            log = self.stderr_path.read_text(errors="replace")[-2000:] if self.stderr_path.exists() else ""
            raise RuntimeError(f"pushwired printed no 'listening on' line within {deadline:.0f} s; stderr:\n{log}")
        self.host, self.port = found[0]

    @property
    def http_url(self) -> str:
        """The HTTP door's base URL: https when the server has a certificate (the door then speaks TLS)."""
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.http_port}"

    def http_connection(self, timeout: float = 10) -> http.client.HTTPConnection:
        """A connection to the HTTP door: over TLS trusting the test CA when the server has a certificate."""
        if self.tls:
            context = ssl.create_default_context(cafile=self.tls["ca_file"])
            return http.client.HTTPSConnection(self.host, self.http_port, timeout=timeout, context=context)
        return http.client.HTTPConnection(self.host, self.http_port, timeout=timeout)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self._stderr.close()
        shutil.rmtree(self.data_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def clear_server():
    """One pushwired for the session, reached in clear text."""
    binary = find_pushwired()
    if binary is None:
        pytest.skip("pushwired binary not found (build it with `swift build`, or set $PUSHWIRED)")
    running = RunningServer(binary)
    running.tls = {}
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="session")
def tls_dir(tmp_path_factory) -> Path:
    """The throw-away CA and certificates of Scripts/tls/make-test-ca, made for this session."""
    directory = tmp_path_factory.mktemp("tls")
    subprocess.run([str(REPO / "Scripts" / "tls" / "make-test-ca"), str(directory)], check=True, timeout=60)
    return directory


def start_tls_server(tls_dir: Path, certificate: str = "server", extra_args: list[str] | None = None) -> RunningServer:
    """A pushwired whose --listen speaks TLS with the test CA's ``certificate``; ``tls`` holds the
    client arguments that trust the test CA."""
    binary = find_pushwired()
    if binary is None:
        pytest.skip("pushwired binary not found (build it with `swift build`, or set $PUSHWIRED)")
    running = RunningServer(binary, ["--tls-cert", str(tls_dir / f"{certificate}.pem"),
                                     "--tls-key", str(tls_dir / f"{certificate}.key"), *(extra_args or [])])
    running.tls = {"ca_file": str(tls_dir / "ca.pem")}
    return running


@pytest.fixture(scope="session")
def tls_server(tls_dir):
    """One pushwired for the session speaking TLS on its RPC port (the test CA's server.pem)."""
    running = start_tls_server(tls_dir)
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="session", params=["clear", "tls"])
def server(request):
    """The integration tests' server, once in clear text and once over TLS (``server.tls`` are
    the client arguments for it)."""
    return request.getfixturevalue("clear_server" if request.param == "clear" else "tls_server")
