"""The console in headless Firefox (Debian's firefox-esr). Debian packages no geckodriver and
nothing may be downloaded at test time, so the test talks to Firefox's own remote protocol,
Marionette (what geckodriver itself drives), through `marionette_driver` from PyPI: sign in,
see YesNo marked, create a category and watch the preview follow the edits, save it, open a
message's page and see a tap reported through the API appear in the bar chart and in the taps
over time, which grows with the next tap."""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

pytest.importorskip("marionette_driver")
from marionette_driver.by import By  # noqa: E402
from marionette_driver.errors import MarionetteException  # noqa: E402
from marionette_driver.marionette import Marionette  # noqa: E402

from test_console import admin_call, admin_call_as  # noqa: E402


@pytest.fixture
def firefox(server):
    if server.http_port is None:
        pytest.skip("pushwired printed no 'HTTP listening on' line")
    binary = shutil.which("firefox-esr") or shutil.which("firefox")
    if not binary:
        pytest.skip("Debian's firefox-esr is not installed (Scripts/install-deps --test)")
    profile = Path(tempfile.mkdtemp(prefix="pushwire-firefox-"))
    # Port 0: Firefox picks a free port and writes it to MarionetteActivePort in the profile.
    (profile / "user.js").write_text('user_pref("marionette.port", 0);\n'
                                     'user_pref("browser.shell.checkDefaultBrowser", false);\n')
    process = subprocess.Popen([binary, "--headless", "--marionette", "--no-remote", "--profile", str(profile), "about:blank"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, "MOZ_CRASHREPORTER_DISABLE": "1"})
    client = None
    try:
        port_file = profile / "MarionetteActivePort"
        deadline = time.monotonic() + 60
        while not (port_file.exists() and port_file.read_text().strip()) and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.2)
        if not port_file.exists():
            pytest.fail(f"Firefox opened no Marionette port within 60 s (exit status {process.poll()})")
        client = Marionette(host="127.0.0.1", port=int(port_file.read_text().strip()), startup_timeout=30)
        # Over TLS the door's certificate is the throw-away test CA's, which Firefox's store does not hold.
        client.start_session({"acceptInsecureCerts": True} if server.tls else None)
        client.timeout.page_load = 20
        yield client
    finally:
        # delete_session can wait on Firefox's shutdown; ending the process is enough.
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        shutil.rmtree(profile, ignore_errors=True)


def until(condition, timeout=10):
    """Polls `condition` until it returns something true (an element gone stale counts as not yet)."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            value = condition()
            if value:
                return value
        except MarionetteException as error:
            last = error
        time.sleep(0.1)
    raise AssertionError(f"not true within {timeout} s (last error: {last})")


def texts(client, selector):
    return [e.text for e in client.find_elements(By.CSS_SELECTOR, selector)]


def test_sign_in_categories_and_message_page_in_firefox(server, firefox):
    created = admin_call(server, "Admin/CreateApplication", {"name": "Console Firefox"})
    app, token = created["application"]["code"], created["accessToken"]
    client = firefox
    client.navigate(f"{server.http_url}/console/")
    until(lambda: client.find_element(By.ID, "token")).send_keys(token)
    client.find_element(By.CSS_SELECTOR, "#sign-in-form button[type=submit]").click()
    until(lambda: any("YesNo" in t and "predefined" in t for t in texts(client, "#category-rows tr")))
    assert client.execute_script("return sessionStorage.getItem('pushwire.token')") == token

    client.find_element(By.ID, "new-category").click()
    client.find_element(By.ID, "category-name").send_keys("Firefox")
    client.find_element(By.ID, "button-0-label").send_keys("Yes")
    until(lambda: texts(client, "#preview-banner .actions span") == ["Yes"])
    client.find_element(By.ID, "add-button").click()
    client.find_element(By.ID, "button-1-label").send_keys("No")
    client.find_element(By.ID, "button-1-destructive").click()
    until(lambda: texts(client, "#preview-expanded .actions span.destructive") == ["No"])
    client.find_element(By.ID, "save-category").click()
    until(lambda: any("Firefox" in t for t in texts(client, "#category-rows tr")))
    stored = [c for c in admin_call_as(server, token, "Categories/ListCategories")["categories"] if c["name"] == "Firefox"][0]
    assert [b["label"] for b in stored["buttons"]] == ["Yes", "No"]

    admin_call_as(server, "", "Devices/RegisterDevice", {"application": app, "hwid": "firefox-phone", "pushToken": "ef" * 32,
                                                       "deviceType": "DEVICE_TYPE_IOS", "language": "en"})
    admin_call_as(server, "", "Devices/RegisterDevice", {"application": app, "hwid": "firefox-tablet", "pushToken": "fe" * 32,
                                                       "deviceType": "DEVICE_TYPE_IOS", "language": "en"})
    code = admin_call_as(server, token, "Messages/CreateMessage", {"notifications": [{
        "content": "From Firefox", "iosCategoryId": stored["categoryId"], "targeting": {"devices": ["firefox-phone", "firefox-tablet"]}}]})["messageCodes"][0]
    # The list shows it; opening it from the list shows its page.
    # Signing in again loads the list afresh.
    client.find_element(By.ID, "sign-out").click()
    client.find_element(By.ID, "token").send_keys(token)
    client.find_element(By.CSS_SELECTOR, "#sign-in-form button[type=submit]").click()
    until(lambda: texts(client, "#message-rows button.link")[:1] == [code])
    client.find_element(By.CSS_SELECTOR, f"#message-rows button[aria-label='Open message {code}']").click()
    until(lambda: client.find_element(By.ID, "message-details").is_displayed())
    admin_call_as(server, "", "Devices/TrackAction", {"application": app, "hwid": "firefox-phone", "messageCode": code,
                                                     "kind": "ACTION_KIND_BUTTON", "categoryId": stored["categoryId"], "buttonId": 1})
    until(lambda: texts(client, "#taps-chart .bar[data-button='1'] .count") == ["1"], 8)
    # Taps over time: the minute's column counts the tap, and grows with the next one.
    def tapped_over_time():
        return sum(int(e.get_attribute("data-taps")) for e in client.find_elements(By.CSS_SELECTOR, "#taps-time-chart .minute"))
    until(lambda: tapped_over_time() == 1, 8)
    admin_call_as(server, "", "Devices/TrackAction", {"application": app, "hwid": "firefox-tablet", "messageCode": code,
                                                     "kind": "ACTION_KIND_BUTTON", "categoryId": stored["categoryId"], "buttonId": stored["buttons"][-1].get("id", 0)})
    until(lambda: tapped_over_time() == 2, 8)
    assert "2 taps" in texts(client, "#taps-time-chart .total")[0]
