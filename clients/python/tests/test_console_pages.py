"""The console's messages list, composer, device lookup and admin pages in headless Chromium
(chromium-driver and Selenium) against a real pushwired: paging through the list and opening a
message, composing a message and seeing what reaches the file sink equal to the server's
preview, the matched-devices count equal to what the fan-out targeted, a device's state, and an
admin creating an application, rotating its token and storing APNs settings that are never shown
back; another application sees none of the first one's data."""
from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

pytest.importorskip("selenium")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

from test_console import admin_call, admin_call_as, browser, shot, sign_in, wait  # noqa: E402,F401


def new_app(server, name):
    created = admin_call(server, "Admin/CreateApplication", {"name": name})
    return created["application"]["code"], created["accessToken"]


def register(server, app, hwid, **extra):
    body = {"application": app, "hwid": hwid, "pushToken": extra.pop("token", "ab" * 32), "deviceType": "DEVICE_TYPE_IOS",
            "language": "en", **extra}
    admin_call_as(server, "", "Devices/RegisterDevice", body)


def replace_text(element, *keys):
    """Selects the field's text and types `keys` over it (Control is released between the two)."""
    element.send_keys(Keys.CONTROL, "a")
    element.send_keys(*keys)


def list_codes(driver):
    return [b.text for b in driver.find_elements(By.CSS_SELECTOR, "#message-rows button.link")]


def test_messages_list_pages_newest_first_and_opens_a_message(server, browser):
    app, token = new_app(server, "Console list")
    later = str(int(time.time() * 1000) + 3_600_000)
    codes = admin_call_as(server, token, "Messages/CreateMessage", {"notifications": [
        {"content": f"list {i}", "sendAtMs": later} for i in range(45)]})["messageCodes"]
    newest_first = list(reversed(codes))

    sign_in(browser, server, token)
    wait(browser, lambda d: list_codes(d) == newest_first[:20])
    assert browser.find_element(By.ID, "newer-messages").get_attribute("disabled") is not None
    row = browser.find_element(By.CSS_SELECTOR, "#message-rows tr")
    assert "scheduled" in row.text and "0 / 0 / 0" in row.text
    browser.execute_script("document.getElementById('messages').scrollIntoView()")
    shot(browser, "messages")
    browser.find_element(By.ID, "older-messages").click()
    wait(browser, lambda d: list_codes(d) == newest_first[20:40])
    browser.find_element(By.ID, "older-messages").click()
    wait(browser, lambda d: list_codes(d) == newest_first[40:])
    assert browser.find_element(By.ID, "older-messages").get_attribute("disabled") is not None
    browser.find_element(By.ID, "newer-messages").click()
    wait(browser, lambda d: list_codes(d) == newest_first[20:40])
    # A row opens the message's page.
    browser.find_element(By.CSS_SELECTOR, f"#message-rows button[aria-label='Open message {newest_first[25]}']").click()
    wait(browser, lambda d: d.find_element(By.ID, "message-status").text == "scheduled")
    assert browser.find_element(By.ID, "message-code").get_attribute("value") == newest_first[25]

    # Another application's list has none of them.
    _, other = new_app(server, "Console list other")
    browser.find_element(By.ID, "sign-out").click()
    sign_in(browser, server, other)
    wait(browser, lambda d: d.find_element(By.ID, "message-page").text == "no messages yet")
    assert list_codes(browser) == []


def sink_payloads(server, code):
    sink = Path(server.data_dir) / "data" / "sink.jsonl"
    if not sink.exists():
        return []
    return [json.loads(line) for line in sink.read_text().splitlines() if code in line]


def test_compose_counts_previews_and_sends_to_the_file_sink(server, browser):
    app, token = new_app(server, "Console compose")
    category = admin_call_as(server, token, "Categories/UpsertCategory", {"category": {"name": "Order", "buttons": [
        {"id": 1, "label": "Track"}, {"id": 2, "label": "Cancel order", "destructive": True}]}})["category"]
    for hwid in ("pro-1", "pro-2"):
        register(server, app, hwid, tags=[{"name": "plan", "value": {"stringValue": "pro"}}])
    register(server, app, "free-1", tags=[{"name": "plan", "value": {"stringValue": "free"}}], language="de")

    sign_in(browser, server, token)
    wait(browser, lambda d: d.find_element(By.ID, "compose").is_displayed())
    wait(browser, lambda d: d.find_element(By.ID, "compose-count").text == "3")  # no selector: every device
    assert browser.find_element(By.ID, "compose-error").text == "", "an empty composer is not an error"
    assert browser.find_element(By.ID, "compose-size").text == "write the text to see the payload"
    browser.find_element(By.ID, "compose-content").send_keys("Your order shipped")
    browser.find_element(By.ID, "compose-title-text").send_keys("Shop")
    browser.find_element(By.ID, "compose-translations").send_keys("de: Ihre Bestellung ist unterwegs | Laden")
    Select(browser.find_element(By.ID, "compose-category")).select_by_value(str(category["categoryId"]))
    wait(browser, lambda d: [s.text for s in d.find_elements(By.CSS_SELECTOR, "#compose-preview-expanded .actions span")]
         == ["Track", "Cancel order"])
    Select(browser.find_element(By.ID, "compose-badge-mode")).select_by_value("set")
    badge = browser.find_element(By.ID, "compose-badge")
    replace_text(badge, "3")
    browser.find_element(By.ID, "compose-sound").send_keys("default")
    # Custom data is checked as JSON before anything is sent.
    data = browser.find_element(By.ID, "compose-data")
    data.send_keys('{"order": ')
    wait(browser, lambda d: d.find_element(By.ID, "compose-data-error").text.startswith("Custom data is not JSON"))
    data.send_keys("42}")
    wait(browser, lambda d: d.find_element(By.ID, "compose-data-error").text == "")
    browser.find_element(By.ID, "compose-conditions").send_keys("plan = pro")
    wait(browser, lambda d: d.find_element(By.ID, "compose-count").text == "2")
    # The payload the server rendered, per language, and the meter against 4096 bytes.
    wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#compose-payloads pre")) == 2
         and '"badge":3' in d.find_element(By.CSS_SELECTOR, "#compose-payloads pre").text)
    default = json.loads(browser.find_element(By.CSS_SELECTOR, "#compose-payloads pre[data-language='']").text)
    german = json.loads(browser.find_element(By.CSS_SELECTOR, "#compose-payloads pre[data-language='de']").text)
    assert default["aps"]["alert"] == {"title": "Shop", "body": "Your order shipped"}
    assert german["aps"]["alert"] == {"title": "Laden", "body": "Ihre Bestellung ist unterwegs"}
    assert default["aps"]["category"] == str(category["categoryId"]) and default["order"] == 42
    meter = float(browser.find_element(By.ID, "compose-meter").get_attribute("value"))
    assert 100 < meter < 4096 and "of 4096 bytes" in browser.find_element(By.ID, "compose-size").text
    shot(browser, "compose")
    # An over-long text is refused by the server's own check, and accepted trimmed with trim_to_fit.
    content = browser.find_element(By.ID, "compose-content")
    browser.execute_script("arguments[0].value = 'x'.repeat(5000); arguments[0].dispatchEvent(new Event('input', {bubbles: true}))", content)
    wait(browser, lambda d: "over APNs' 4096" in d.find_element(By.ID, "compose-error").text)
    browser.find_element(By.ID, "compose-trim").click()
    wait(browser, lambda d: "trimmed" in d.find_element(By.CSS_SELECTOR, "#compose-payloads figcaption").text)
    assert float(browser.find_element(By.ID, "compose-meter").get_attribute("value")) <= 4096
    browser.find_element(By.ID, "compose-trim").click()
    replace_text(content, "Your order shipped")
    wait(browser, lambda d: d.find_element(By.ID, "compose-error").text == ""
         and '"body":"Your order shipped"' in d.find_element(By.CSS_SELECTOR, "#compose-payloads pre").text)
    previewed = browser.find_element(By.CSS_SELECTOR, "#compose-payloads pre[data-language='']").text

    browser.find_element(By.ID, "compose-send").click()
    wait(browser, lambda d: d.find_element(By.ID, "compose-sent").text.startswith("Created message"))
    code = browser.find_element(By.ID, "compose-sent").text.split()[2]
    wait(browser, lambda d: d.find_element(By.ID, "message-status").text == "done", 15)
    assert browser.find_element(By.ID, "message-progress").text == "2 / 2 / 0", "the count was what the fan-out targeted"
    assert code in list_codes(browser)[:1], "the new message heads the list"
    delivered = wait(browser, lambda d: len(sink_payloads(server, code)) == 2 and sink_payloads(server, code))
    # What reached the sink is the previewed payload, with the real message code for the placeholder.
    expected = json.loads(previewed)
    expected["pw_msg"] = code
    for line in delivered:
        payload = line.get("payload", line)
        assert payload == expected, line


def test_device_lookup(server, browser):
    app, token = new_app(server, "Console devices")
    register(server, app, "lookup-1", language="fr", userId="user-9",
             tags=[{"name": "plan", "value": {"stringValue": "pro"}}, {"name": "age", "value": {"intValue": "31"}}])
    register(server, app, "lookup-2")
    admin_call_as(server, "", "Devices/UnregisterDevice", {"application": app, "hwid": "lookup-2"})

    sign_in(browser, server, token)
    wait(browser, lambda d: d.find_element(By.ID, "devices").is_displayed())
    field = browser.find_element(By.ID, "device-hwid")
    field.send_keys("lookup-1", Keys.ENTER)
    wait(browser, lambda d: d.find_element(By.ID, "device-details").is_displayed())
    assert browser.find_element(By.ID, "device-platform").text == "iOS"
    assert browser.find_element(By.ID, "device-language").text == "fr"
    assert browser.find_element(By.ID, "device-user").text == "user-9"
    assert browser.find_element(By.ID, "device-token").get_attribute("data-state") == "live"
    assert sorted(li.text for li in browser.find_elements(By.CSS_SELECTOR, "#device-tags li")) == ["age = 31", "plan = pro"]
    browser.execute_script("document.getElementById('devices').scrollIntoView()")
    shot(browser, "device")
    replace_text(field, "lookup-2", Keys.ENTER)
    wait(browser, lambda d: d.find_element(By.ID, "device-token").get_attribute("data-state") == "no_token")
    replace_text(field, "nobody", Keys.ENTER)
    wait(browser, lambda d: "not found" in d.find_element(By.ID, "device-error").text)
    assert not browser.find_element(By.ID, "device-details").is_displayed()

    # Another application cannot look up this one's devices.
    _, other = new_app(server, "Console devices other")
    browser.find_element(By.ID, "sign-out").click()
    sign_in(browser, server, other)
    wait(browser, lambda d: d.find_element(By.ID, "devices").is_displayed())
    browser.find_element(By.ID, "device-hwid").send_keys("lookup-1", Keys.ENTER)
    wait(browser, lambda d: "not found" in d.find_element(By.ID, "device-error").text)


def p8_key():
    """A fresh P-256 key in PKCS#8 PEM, as Apple's .p8 files are."""
    ec = subprocess.run(["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout"], capture_output=True, check=True).stdout
    return subprocess.run(["openssl", "pkcs8", "-topk8", "-nocrypt"], input=ec, capture_output=True, check=True).stdout.decode()


def test_admin_creates_rotates_and_sets_apns_without_showing_the_key(server, browser):
    sign_in(browser, server, server.admin_token)
    wait(browser, lambda d: d.find_element(By.ID, "applications").is_displayed())
    browser.find_element(By.ID, "new-application").click()
    browser.find_element(By.ID, "application-name").send_keys("Made in the console")
    browser.find_element(By.ID, "save-application").click()
    wait(browser, lambda d: d.find_element(By.ID, "new-token").text.startswith("Access token of Made in the console"))
    first = browser.find_element(By.ID, "new-token").text.rsplit(" ", 1)[1]
    code = browser.find_element(By.ID, "application-code").text
    assert admin_call_as(server, first, "Categories/ListCategories")["categories"], "the token shown works"

    # Rename, rotate and store APNs settings in one save.
    key = p8_key()
    name = browser.find_element(By.ID, "application-name")
    replace_text(name, "Renamed in the console")
    browser.find_element(By.ID, "apns-team").send_keys("TEAM123456")
    browser.find_element(By.ID, "apns-key-id").send_keys("KEY1234567")
    browser.find_element(By.ID, "apns-topic").send_keys("com.example.console")
    browser.execute_script("document.getElementById('apns-p8').value = arguments[0]", key)
    browser.find_element(By.ID, "rotate-token").click()
    browser.find_element(By.ID, "save-application").click()
    wait(browser, lambda d: d.find_element(By.ID, "new-token").text.startswith("Access token of Renamed in the console"))
    second = browser.find_element(By.ID, "new-token").text.rsplit(" ", 1)[1]
    assert second != first
    wait(browser, lambda d: any("Renamed in the console" in r.text and " yes " in f" {r.text} "
                                for r in d.find_elements(By.CSS_SELECTOR, "#application-rows tr")))
    shot(browser, "application-editor")
    # The key is never shown back: not in the form, not in the page, not in the API's answer.
    assert browser.find_element(By.ID, "apns-p8").get_attribute("value") == ""
    assert "PRIVATE KEY" not in browser.page_source
    listed = [a for a in admin_call(server, "Admin/ListApplications", {})["applications"] if a["code"] == code][0]
    assert listed["hasApnsKey"] is True and listed["apns"].get("privateKeyP8", "") == ""
    assert browser.find_element(By.ID, "apns-team").get_attribute("value") == "TEAM123456"
    # The old token stopped working at once; the new one works.
    connection = server.http_connection()
    connection.request("POST", "/pushwire.v1.Categories/ListCategories", body="{}",
                       headers={"Content-Type": "application/json", "Authorization": f"Bearer {first}"})
    assert connection.getresponse().status == 401
    connection.close()
    assert admin_call_as(server, second, "Categories/ListCategories")["categories"]
