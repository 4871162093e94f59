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


def test_c_integration(clear_server):
    run = subprocess.run(c_program("integration") + [clear_server.host, str(clear_server.port), clear_server.admin_token],
                         capture_output=True, text=True, timeout=120)
    print(run.stdout, run.stderr)
    assert run.returncode == 0, run.stdout + run.stderr
    assert " 0 failed" in run.stdout


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
