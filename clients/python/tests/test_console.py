"""The operator console (/console/) in Debian's headless Chromium through chromium-driver and
Selenium, against a real pushwired: its headers, sign-in with an application token, creating a
category and watching the preview follow the button editor, the server's error shown when it
refuses, and a second application seeing none of the first one's categories. Screenshots go to
docs/console/ when PUSHWIRE_CONSOLE_SCREENSHOTS is set."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

selenium = pytest.importorskip("selenium")
from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

SHOTS = Path(__file__).resolve().parents[3] / "docs" / "console"


def admin_call(server, method, body):
    connection = server.http_connection()
    connection.request("POST", f"/pushwire.v1.{method}", body=json.dumps(body),
                       headers={"Content-Type": "application/json", "Authorization": f"Bearer {server.admin_token}"})
    response = connection.getresponse()
    reply = json.loads(response.read() or b"{}")
    connection.close()
    assert response.status == 200, reply
    return reply


@pytest.fixture
def browser(server):
    if server.http_port is None:
        pytest.skip("pushwired printed no 'HTTP listening on' line")
    chromium = shutil.which("chromium")
    driver_path = shutil.which("chromedriver")
    if not chromium or not driver_path:
        pytest.skip("Debian's chromium and chromium-driver are not installed (Scripts/install-deps --test)")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    # Over TLS the door's certificate is the throw-away test CA's, which Chromium's store does not hold.
    options.accept_insecure_certs = bool(server.tls)
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1600"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_page_load_timeout(20)
    try:
        yield driver
    finally:
        driver.quit()


def wait(driver, condition, timeout=10):
    # The page rebuilds rows and editors as it redraws: an element gone stale is retried.
    return WebDriverWait(driver, timeout, ignored_exceptions=(StaleElementReferenceException,)).until(lambda d: condition(d))


def shot(driver, name):
    if os.environ.get("PUSHWIRE_CONSOLE_SCREENSHOTS"):
        SHOTS.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(SHOTS / f"{name}.png"))


def sign_in(driver, server, token):
    driver.get(f"{server.http_url}/console/")
    field = wait(driver, lambda d: d.find_element(By.ID, "token"))
    field.send_keys(token)
    driver.find_element(By.CSS_SELECTOR, "#sign-in-form button[type=submit]").click()


def preview_labels(driver, which):
    return [span.text for span in driver.find_elements(By.CSS_SELECTOR, f"#preview-{which} .actions span")]


def test_console_headers(server):
    if server.http_port is None:
        pytest.skip("no HTTP door")
    connection = server.http_connection()
    connection.request("GET", "/console/")
    response = connection.getresponse()
    body = response.read().decode()
    assert response.status == 200
    assert response.getheader("Content-Type") == "text/html; charset=utf-8"
    assert response.getheader("X-Content-Type-Options") == "nosniff"
    assert "script-src 'self'" in response.getheader("Content-Security-Policy")
    assert '<script type="module" src="app.js">' in body
    connection.request("GET", "/console/app.js")
    response = connection.getresponse()
    response.read()
    assert response.getheader("Content-Type") == "text/javascript; charset=utf-8"
    connection.close()


def test_categories_with_live_preview_and_isolation(server, browser):
    first = admin_call(server, "Admin/CreateApplication", {"name": "Console first"})
    second = admin_call(server, "Admin/CreateApplication", {"name": "Console second"})
    first_token, second_token = first["accessToken"], second["accessToken"]

    sign_in(browser, server, first_token)
    wait(browser, lambda d: d.find_element(By.ID, "categories").is_displayed())
    rows = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#category-rows tr"))
    assert any("YesNo" in row.text and "predefined" in row.text for row in rows)
    assert browser.find_element(By.ID, "categories-version").text not in ("", "–")
    # The token is in sessionStorage, never in the URL or a cookie.
    assert browser.execute_script("return sessionStorage.getItem('pushwire.token')") == first_token
    assert first_token not in browser.current_url
    assert browser.get_cookies() == []
    shot(browser, "categories")

    browser.find_element(By.ID, "new-category").click()
    browser.find_element(By.ID, "category-name").send_keys("Reply")
    browser.find_element(By.ID, "button-0-label").send_keys("Accept")
    wait(browser, lambda d: preview_labels(d, "banner") == ["Accept"])
    browser.find_element(By.ID, "add-button").click()
    browser.find_element(By.ID, "button-1-label").send_keys("Decline")
    browser.find_element(By.ID, "button-1-destructive").click()
    browser.find_element(By.ID, "add-button").click()
    browser.find_element(By.ID, "button-2-label").send_keys("Later")
    # Banner: first two; expanded: all three, the destructive one in red; Android: up to three.
    wait(browser, lambda d: preview_labels(d, "expanded") == ["Accept", "Decline", "Later"])
    assert preview_labels(browser, "banner") == ["Accept", "Decline"]
    assert preview_labels(browser, "android") == ["ACCEPT", "DECLINE", "LATER"]  # Android capitalizes actions
    red = browser.find_elements(By.CSS_SELECTOR, "#preview-expanded .actions span.destructive")
    assert [span.text for span in red] == ["Decline"]
    # Apple's rules as you type: a duplicate id is reported before saving.
    id_field = browser.find_element(By.ID, "button-2-id")
    id_field.clear()
    id_field.send_keys("1")
    wait(browser, lambda d: "used by another button" in d.find_element(By.ID, "rule-errors").text)
    id_field.send_keys("\b3")
    wait(browser, lambda d: d.find_element(By.ID, "rule-errors").text == "")
    shot(browser, "category-editor")
    browser.execute_script("document.getElementById('preview').scrollIntoView()")
    shot(browser, "category-preview")
    # Editing a label changes the preview as it is typed.
    browser.find_element(By.ID, "button-0-label").send_keys(" now")
    wait(browser, lambda d: preview_labels(d, "banner")[0] == "Accept now")

    browser.find_element(By.ID, "save-category").click()
    wait(browser, lambda d: any("Reply" in row.text for row in d.find_elements(By.CSS_SELECTOR, "#category-rows tr")))
    stored = admin_call_as(server, first_token, "Categories/ListCategories")
    reply = [c for c in stored["categories"] if c["name"] == "Reply"][0]
    assert [b["label"] for b in reply["buttons"]] == ["Accept now", "Decline", "Later"]
    assert reply["buttons"][1].get("destructive") is True

    # The server's own error is shown when it refuses (an empty label saved despite the rules).
    browser.find_element(By.ID, "button-0-label").send_keys(Keys.CONTROL, "a", Keys.BACKSPACE)
    wait(browser, lambda d: "label must not be empty" in d.find_element(By.ID, "rule-errors").text)
    browser.find_element(By.ID, "save-category").click()
    wait(browser, lambda d: d.find_element(By.ID, "server-error").text.startswith("The server refused:"))

    # Another application's token sees none of the first one's categories.
    browser.find_element(By.ID, "sign-out").click()
    assert browser.execute_script("return sessionStorage.getItem('pushwire.token')") is None
    sign_in(browser, server, second_token)
    rows = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#category-rows tr"))
    assert [row.find_elements(By.TAG_NAME, "td")[1].text.split(" ")[0] for row in rows] == ["YesNo"]

    # A wrong token is refused with the server's message, and nothing is shown.
    browser.find_element(By.ID, "sign-out").click()
    sign_in(browser, server, "not-a-token")
    wait(browser, lambda d: d.find_element(By.ID, "sign-in-error").text.startswith("Sign-in failed"))
    assert not browser.find_element(By.ID, "categories").is_displayed()


def test_admin_sees_applications(server, browser):
    admin_call(server, "Admin/CreateApplication", {"name": "Listed by the console"})
    sign_in(browser, server, server.admin_token)
    wait(browser, lambda d: "Listed by the console" in d.find_element(By.ID, "application-rows").text)
    assert browser.find_element(By.ID, "who").text == "Signed in with the admin token"
    shot(browser, "applications")


def admin_call_as(server, token, method, body=None):
    """Calls `method` with `token` (none when empty, as devices call)."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    connection = server.http_connection()
    connection.request("POST", f"/pushwire.v1.{method}", body=json.dumps(body or {}), headers=headers)
    response = connection.getresponse()
    reply = json.loads(response.read() or b"{}")
    connection.close()
    assert response.status == 200, reply
    return reply


def test_message_page_taps_chart_and_cancel(server, browser):
    import time
    created = admin_call(server, "Admin/CreateApplication", {"name": "Console messages"})
    app, token = created["application"]["code"], created["accessToken"]
    admin_call_as(server, token, "Categories/ListCategories")
    category = admin_call_as(server, token, "Categories/UpsertCategory", {"category": {"name": "Rate", "buttons": [
        {"id": 1, "label": "Love it"}, {"id": 2, "label": "Meh"}]}})["category"]
    admin_call_as(server, "", "Devices/RegisterDevice", {"application": app, "hwid": "console-phone", "pushToken": "cd" * 32,
                                                       "deviceType": "DEVICE_TYPE_IOS", "language": "en"})
    code = admin_call_as(server, token, "Messages/CreateMessage", {"notifications": [{
        "content": "Rate us?", "iosCategoryId": category["categoryId"], "targeting": {"devices": ["console-phone"]}}]})["messageCodes"][0]

    sign_in(browser, server, token)
    wait(browser, lambda d: d.find_element(By.ID, "messages").is_displayed())
    browser.find_element(By.ID, "message-code").send_keys(code, Keys.ENTER)
    wait(browser, lambda d: d.find_element(By.ID, "message-details").is_displayed())
    assert browser.find_element(By.ID, "message-error").text == ""
    # Taps reported through the API show up in the chart within its one-second refresh.
    admin_call_as(server, "", "Devices/TrackAction", {"application": app, "hwid": "console-phone", "messageCode": code,
                                                     "kind": "ACTION_KIND_BUTTON", "categoryId": category["categoryId"], "buttonId": 2})
    wait(browser, lambda d: [c.text for c in d.find_elements(By.CSS_SELECTOR, "#taps-chart .bar[data-button='2'] .count")] == ["1"], 8)
    shot(browser, "message")

    later = admin_call_as(server, token, "Messages/CreateMessage", {"notifications": [{
        "content": "later", "sendAtMs": str(int(time.time() * 1000) + 3_600_000)}]})["messageCodes"][0]
    field = browser.find_element(By.ID, "message-code")
    field.send_keys(Keys.CONTROL, "a", Keys.BACKSPACE)
    field.send_keys(later, Keys.ENTER)
    wait(browser, lambda d: d.find_element(By.ID, "message-status").text == "scheduled")
    browser.execute_script("window.confirm = () => true")
    browser.find_element(By.ID, "cancel-message").click()
    wait(browser, lambda d: d.find_element(By.ID, "message-status").text == "cancelled")
    assert admin_call_as(server, token, "Messages/GetMessageDetails", {"messageCode": later})["status"] == "MESSAGE_STATUS_CANCELLED"

    # Another application cannot open this application's message.
    other = admin_call(server, "Admin/CreateApplication", {"name": "Console messages other"})["accessToken"]
    browser.find_element(By.ID, "sign-out").click()
    sign_in(browser, server, other)
    wait(browser, lambda d: d.find_element(By.ID, "messages").is_displayed())
    browser.find_element(By.ID, "message-code").send_keys(code, Keys.ENTER)
    wait(browser, lambda d: d.find_element(By.ID, "message-error").text.startswith("The server refused"))
    assert not browser.find_element(By.ID, "message-details").is_displayed()
