"""Runs the C client's programs (clients/c, built by Scripts/test-clients or `make`) against the
same real pushwired: the integration program and the device example, both under valgrind."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from pushwire import Client, PushwireError, StatusCode

C_BUILD = Path(__file__).resolve().parents[2] / "c" / "build"
C_BUILD_TLS = C_BUILD.with_name("build-tls")  # `make -C clients/c TLS=1`
VALGRIND = ["valgrind", "--error-exitcode=99", "--leak-check=full", "--errors-for-leak-kinds=all", "-q"]


def c_program(name: str, tls: bool = False) -> list[str]:
    path = (C_BUILD_TLS if tls else C_BUILD) / name
    if not path.exists():
        pytest.skip(f"{path} not built (run `make -C clients/c{' TLS=1' if tls else ''}`)")
    if shutil.which("valgrind") and os.environ.get("PUSHWIRE_NO_VALGRIND") != "1":
        return VALGRIND + [str(path)]
    return [str(path)]


def test_c_integration(clear_server):
    run = subprocess.run(c_program("integration") + [clear_server.host, str(clear_server.port), clear_server.admin_token],
                         capture_output=True, text=True, timeout=120)
    print(run.stdout, run.stderr)
    assert run.returncode == 0, run.stdout + run.stderr
    assert " 0 failed" in run.stdout


def run_c_integration_over_tls(tls_server, *options: str) -> subprocess.CompletedProcess:
    # mbedtls 2.28 checks DNS names only: 127.0.0.1 is dialled, localhost verified.
    return subprocess.run(c_program("integration", tls=True) + [
        tls_server.host, str(tls_server.port), tls_server.admin_token,
        "--ca-file", tls_server.tls["ca_file"], "--server-name", "localhost", *options],
        capture_output=True, text=True, timeout=120)


def test_c_integration_over_tls(tls_server):
    run = run_c_integration_over_tls(tls_server)
    print(run.stdout, run.stderr)
    assert run.returncode == 0, run.stdout + run.stderr
    assert " 0 failed" in run.stdout


@pytest.mark.parametrize("certificate, server_name, reason", [
    ("wrong-host", "localhost", "certificate verification failed for localhost"),
    ("untrusted", "localhost", "not correctly signed by the trusted CA"),
    ("server", "elsewhere.invalid", "certificate verification failed for elsewhere.invalid"),
])
def test_c_refuses_a_server_it_cannot_verify(tls_dir, certificate, server_name, reason):
    from conftest import start_tls_server
    running = start_tls_server(tls_dir, certificate)
    try:
        run = subprocess.run(c_program("integration", tls=True) + [
            running.host, str(running.port), running.admin_token, "--ca-file", str(tls_dir / "ca.pem"),
            "--server-name", server_name, "--expect-tls-failure", reason],
            capture_output=True, text=True, timeout=60)
    finally:
        running.stop()
    print(run.stdout, run.stderr)
    assert run.returncode == 0, run.stdout + run.stderr


def test_c_device_example(clear_server):
    """The C device example registers, syncs, and reports a tap on a button of the category of a
    message really sent to it — a category other than the application's first (YesNo), so that a
    tap on the first category's button would be refused."""
    from pushwire.v1 import categories_pb2, common_pb2, messages_pb2
    with Client(clear_server.host, clear_server.port, timeout=10, token=clear_server.admin_token) as client:
        app = client.admin.create_application(name="c-device-example")
        code = app.application.code
        auth = {"authorization": f"Bearer {app.access_token}"}
        rate = categories_pb2.Category(name="RateLater")
        rate.buttons.add(id=0, label="Rate", behavior=categories_pb2.BUTTON_BEHAVIOR_DEFAULT)
        rate.buttons.add(id=1, label="Later", behavior=categories_pb2.BUTTON_BEHAVIOR_DEFAULT)
        rate_id = client.categories.upsert_category(category=rate, metadata=auth).category.category_id
        notification = messages_pb2.Notification(content="Rate us?", ios_category_id=rate_id)
        notification.targeting.devices.append("c-device-42")
        client.devices.register_device(
            application=code, hwid="c-device-42", push_token="5d1c7a3e" * 8, device_type=common_pb2.DEVICE_TYPE_IOS)
        created = client.messages.create_message(
            messages_pb2.CreateMessageRequest(notifications=[notification]), metadata=auth)
    message_code = created.message_codes[0]
    run = subprocess.run(c_program("device") + ["--host", clear_server.host, "--port", str(clear_server.port),
                                                "--message-code", message_code, "--category", str(rate_id),
                                                "--button", "1", code, "c-device-42", "5d1c7a3e" * 8],
                         capture_output=True, text=True, timeout=120)
    print(run.stdout, run.stderr)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "registered: categories_version=" in run.stdout
    assert '"YesNo"' in run.stdout and '"RateLater"' in run.stdout
    assert "sync: not_modified" in run.stdout
    assert f"track_action: recorded=true category={rate_id} button=1" in run.stdout
    with Client(clear_server.host, clear_server.port, timeout=10) as client:
        details = client.messages.get_message_details(message_code=message_code, metadata=auth)
    assert {t.button_id: t.count for t in details.taps if t.count} == {1: 1}

    # Only the message code: an open.
    opened = subprocess.run(c_program("device") + ["--host", clear_server.host, "--port", str(clear_server.port),
                                                   "--message-code", message_code, code, "c-device-42", "5d1c7a3e" * 8],
                            capture_output=True, text=True, timeout=120)
    assert opened.returncode == 0, opened.stdout + opened.stderr
    assert "track_action: recorded=true open" in opened.stdout
