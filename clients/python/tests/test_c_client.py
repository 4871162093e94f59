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
VALGRIND = ["valgrind", "--error-exitcode=99", "--leak-check=full", "--errors-for-leak-kinds=all", "-q"]


def c_program(name: str) -> list[str]:
    path = C_BUILD / name
    if not path.exists():
        pytest.skip(f"{path} not built (run `make -C clients/c`)")
    if shutil.which("valgrind") and os.environ.get("PUSHWIRE_NO_VALGRIND") != "1":
        return VALGRIND + [str(path)]
    return [str(path)]


def test_c_integration(server):
    run = subprocess.run(c_program("integration") + [server.host, str(server.port), server.admin_token],
                         capture_output=True, text=True, timeout=120)
    print(run.stdout, run.stderr)
    assert run.returncode == 0, run.stdout + run.stderr
    assert " 0 failed" in run.stdout


def test_c_device_example(server):
    """The C device example registers, syncs, and reports a tap on a message really sent to it."""
    from pushwire.v1 import common_pb2, messages_pb2
    with Client(server.host, server.port, timeout=10, token=server.admin_token) as client:
        app = client.admin.create_application(name="c-device-example")
        code = app.application.code
        registered = client.devices.register_device(
            application=code, hwid="c-device-42", push_token="5d1c7a3e" * 8, device_type=common_pb2.DEVICE_TYPE_IOS)
        yes_no = next(c for c in registered.ios_categories if c.name == "YesNo")
        notification = messages_pb2.Notification(content="Coming?", ios_category_id=yes_no.category_id)
        notification.targeting.devices.append("c-device-42")
        created = client.messages.create_message(
            messages_pb2.CreateMessageRequest(notifications=[notification]),
            metadata={"authorization": f"Bearer {app.access_token}"})
    run = subprocess.run(c_program("device") + ["--host", server.host, "--port", str(server.port),
                                                "--message-code", created.message_codes[0],
                                                code, "c-device-42", "5d1c7a3e" * 8],
                         capture_output=True, text=True, timeout=120)
    print(run.stdout, run.stderr)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "registered: categories_version=" in run.stdout
    assert '"YesNo"' in run.stdout
    assert "sync: not_modified" in run.stdout
    assert "track_action: recorded=true" in run.stdout
