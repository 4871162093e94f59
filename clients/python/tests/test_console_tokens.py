"""The console's device page and message page with tokens APNs refused, in headless Chromium
(chromium-driver and Selenium) against a real pushwired that sends to the APNs double
(Scripts/apns-double): a 410 Unregistered with its `timestamp` makes the token dead since that
time, a 400 BadDeviceToken makes it invalid since the answer, an accepted one stays live; the
message page counts both among its dead or invalid tokens, and a new token makes the device
live again."""
from __future__ import annotations

import shutil
import subprocess
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

pytest.importorskip("selenium")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

from conftest import RunningServer, find_pushwired  # noqa: E402
from test_console import admin_call, admin_call_as, browser, sign_in, wait  # noqa: E402,F401

REPO = Path(__file__).resolve().parents[3]
DOUBLE = REPO / "Scripts" / "apns-double"
# What the double's 410 answers carry as "timestamp" (Scripts/apns-double/apns_double.py).
DEAD_SINCE_MS = 1754000000000
TOKENS = {"live": "aa" * 32, "dead": "bb" * 32, "invalid": "cc" * 32}


def double_python() -> str | None:
    """A Python with h2 and cryptography (Scripts/install-deps --test installs them beside
    python3, not in the client's venv)."""
    for candidate in (shutil.which("python3"), "/usr/bin/python3"):
        if candidate and subprocess.run([candidate, "-c", "import h2, cryptography"], capture_output=True).returncode == 0:
            return candidate
    return None


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """pushwired whose APNs endpoint is the double, which refuses two of the tokens."""
    python, binary = double_python(), find_pushwired()
    if python is None:
        pytest.skip("the APNs double needs python3 with h2 and cryptography (Scripts/install-deps --test)")
    if binary is None:
        pytest.skip("pushwired binary not found (build it with `swift build`, or set $PUSHWIRED)")
    material = tmp_path_factory.mktemp("apns")
    subprocess.run([str(DOUBLE / "make-certs"), str(material)], check=True, capture_output=True, timeout=60)
    double = subprocess.Popen([python, str(DOUBLE / "apns_double.py"), "--port", "0",
                               "--cert", str(material / "server.pem"), "--key", str(material / "server.key"),
                               "--log", str(material / "log.jsonl"), "--public-key", str(material / "app.pub.pem"),
                               "--team-id", "TEAM123456", "--key-id", "KEY1234567", "--topic", "com.example.tokens",
                               "--rule", f"{TOKENS['dead']}=410:Unregistered", "--rule", f"{TOKENS['invalid']}=400:BadDeviceToken"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    running = None
    try:
        line = double.stdout.readline()
        assert line.startswith("PORT "), f"the APNs double printed {line!r}"
        running = RunningServer(binary, ["--apns-url", f"https://127.0.0.1:{int(line.split()[1])}",
                                         "--apns-ca-file", str(material / "ca.pem")])
        running.tls = {}
        running.p8 = (material / "app.p8").read_text()
        yield running
    finally:
        if running is not None:
            running.stop()
        double.terminate()
        double.wait(timeout=10)


def look_up(browser, hwid, state):
    """Looks `hwid` up on the device page; waits for its answer in `state`; returns the token's text."""
    field = browser.find_element(By.ID, "device-hwid")
    field.clear()
    field.send_keys(hwid, Keys.ENTER)
    wait(browser, lambda d: d.find_element(By.ID, "device-details").get_attribute("data-hwid") == hwid
         and d.find_element(By.ID, "device-token").get_attribute("data-state") == state)
    return browser.find_element(By.ID, "device-token").text


def iso(ms):
    """`ms` as JavaScript's Date.toISOString writes it."""
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def test_refused_tokens_show_dead_since_apns_timestamp_and_invalid(server, browser):
    created = admin_call(server, "Admin/CreateApplication", {"name": "Console tokens", "apns": {
        "teamId": "TEAM123456", "keyId": "KEY1234567", "topic": "com.example.tokens", "privateKeyP8": server.p8,
        "environment": "APNS_ENVIRONMENT_SANDBOX"}})
    app, token = created["application"]["code"], created["accessToken"]
    for hwid, push_token in TOKENS.items():
        admin_call_as(server, "", "Devices/RegisterDevice", {"application": app, "hwid": hwid, "pushToken": push_token,
                                                               "deviceType": "DEVICE_TYPE_IOS", "language": "en"})
    started_ms = int(time.time() * 1000)
    code = admin_call_as(server, token, "Messages/CreateMessage", {"notifications": [{"content": "refusals"}]})["messageCodes"][0]
    deadline = time.monotonic() + 30
    while admin_call_as(server, token, "Messages/GetMessageDetails", {"messageCode": code}).get("status") != "MESSAGE_STATUS_DONE":
        assert time.monotonic() < deadline, "the message was not done within 30 s"
        time.sleep(0.1)
    answered_ms = int(time.time() * 1000)

    sign_in(browser, server, token)
    wait(browser, lambda d: d.find_element(By.ID, "devices").is_displayed())
    text = look_up(browser, "dead", "dead")
    assert f"since {iso(DEAD_SINCE_MS)}" in text, f"{text!r} does not give APNs' timestamp"
    text = look_up(browser, "invalid", "invalid")
    reply = admin_call_as(server, token, "Messages/GetDevice", {"hwid": "invalid"})
    assert reply["tokenState"] == "TOKEN_STATE_INVALID"
    assert started_ms <= int(reply["tokenRefusedAtMs"]) <= answered_ms, "invalid as of the 400"
    assert f"since {iso(int(reply['tokenRefusedAtMs']))}" in text
    text = look_up(browser, "live", "live")
    assert "since" not in text

    # The message page counts both refusals among its dead or invalid tokens.
    field = browser.find_element(By.ID, "message-code")
    field.clear()
    field.send_keys(code, Keys.ENTER)
    wait(browser, lambda d: d.find_element(By.ID, "message-invalid").text == "2")
    assert browser.find_element(By.ID, "message-invalid").find_element(By.XPATH, "preceding-sibling::dt[1]").text == "Dead or invalid tokens"

    # A new token makes the dead device live again.
    admin_call_as(server, "", "Devices/RegisterDevice", {"application": app, "hwid": "dead", "pushToken": "dd" * 32,
                                                           "deviceType": "DEVICE_TYPE_IOS", "language": "en"})
    look_up(browser, "dead", "live")
    assert admin_call_as(server, token, "Messages/GetDevice", {"hwid": "dead"}).get("tokenRefusedAtMs", "0") == "0"
