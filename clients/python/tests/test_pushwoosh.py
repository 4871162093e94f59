"""pushwired's Pushwoosh-compatible API (POST /json/1.3/<method>) driven by an unchanged Pushwoosh
client, PyPI's pypushwoosh, pointed at the local server by its class attributes: register a device
and get the seed's iosCategories, set and read tags, send a message with a category and see it in
the sink, report an open and a tap, read the statistics, and the refusals."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

pypushwoosh = pytest.importorskip("pypushwoosh")
from pypushwoosh import command, constants, notification  # noqa: E402
from pypushwoosh.client import PushwooshClient  # noqa: E402

PUSH_TOKEN = "cd" * 32


@pytest.fixture
def client(server, monkeypatch):
    if server.http_port is None:
        pytest.skip("pushwired printed no 'HTTP listening on' line")
    if server.tls:
        # The client is unchanged: `requests` is told to trust the test CA, as a real deployment's
        # certificate from a public CA needs nothing.
        monkeypatch.setenv("REQUESTS_CA_BUNDLE", server.tls["ca_file"])

    class LocalPushwoosh(PushwooshClient):
        scheme = "https" if server.tls else "http"
        hostname = f"{server.host}:{server.http_port}"

    return LocalPushwoosh(timeout=10)


def connect(server, method, body, token):
    connection = server.http_connection()
    connection.request("POST", f"/pushwire.v1.{method}", body=json.dumps(body),
                       headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    response = connection.getresponse()
    reply = json.loads(response.read())
    connection.close()
    assert response.status == 200, reply
    return reply


@pytest.fixture
def app(server):
    """An application with the seed's Rate/Later category (Rate opens the app)."""
    created = connect(server, "Admin/CreateApplication", {"name": "pushwoosh"}, server.admin_token)
    token = created["accessToken"]
    category = connect(server, "Categories/UpsertCategory", {"category": {"name": "RateLater", "buttons": [
        {"id": 0, "label": "Rate", "startApplication": True, "authenticationRequired": True, "destructive": True},
        {"id": 1, "label": "Later"}]}}, token)["category"]
    return created["application"]["code"], token, category["categoryId"]


def invoke(client, cmd):
    reply = client.invoke(cmd)
    assert reply["status_code"] == 200, reply
    return reply["response"]


def sink_lines(server, code):
    sink = Path(server.data_dir) / "data" / "sink.jsonl"
    if not sink.exists():
        return []
    # Only whole lines: the server may be writing the last one as it is read.
    complete = sink.read_text().rpartition("\n")[0]
    return [json.loads(line) for line in complete.splitlines() if code in line]


def wait_for_sink_lines(server, code, timeout=10):
    """The sink's lines for message `code` once there is one (or none after `timeout` seconds)."""
    deadline = time.time() + timeout
    while not sink_lines(server, code) and time.time() < deadline:
        time.sleep(0.1)
    return sink_lines(server, code)


def test_register_device_returns_the_seeds_ios_categories(client, app):
    code, _, category_id = app
    response = invoke(client, command.RegisterDeviceCommand(code, "pw-1", constants.PLATFORM_IOS, PUSH_TOKEN, "en", 3600))
    rate_later = next(c for c in response["iosCategories"] if c["categoryId"] == category_id)
    # The shape of Pushwoosh's iOS interactive push page, key for key.
    assert rate_later == {"categoryId": category_id, "buttons": [
        {"id": 0, "label": "Rate", "type": "1", "startApplication": 1},
        {"id": 1, "label": "Later", "type": "0", "startApplication": 0}]}
    assert isinstance(rate_later["categoryId"], int)


def test_button_type_is_destructive_and_start_application_is_foreground(server, client, app):
    code, token, _ = app
    connect(server, "Categories/UpsertCategory", {"category": {"name": "Remove", "buttons": [
        {"id": 0, "label": "Remove", "destructive": True}, {"id": 1, "label": "Open", "startApplication": True}]}}, token)
    response = invoke(client, command.RegisterDeviceCommand(code, "pw-2", constants.PLATFORM_IOS, PUSH_TOKEN, "en"))
    remove = next(c for c in response["iosCategories"] if c["buttons"][0]["label"] == "Remove")
    assert remove["buttons"] == [{"id": 0, "label": "Remove", "type": "1", "startApplication": 0},
                                 {"id": 1, "label": "Open", "type": "0", "startApplication": 1}]


def test_tags(client, app):
    code, token, _ = app
    invoke(client, command.RegisterDeviceCommand(code, "pw-tags", constants.PLATFORM_IOS, PUSH_TOKEN))
    assert invoke(client, command.SetTagsCommand(code, "pw-tags", {"plan": "gold", "visits": 3, "vip": True,
                                                                   "topics": ["a", "b"]})) == {"skipped": []}
    assert invoke(client, command.GetTagsCommand(code, "pw-tags", token)) == {"result": {
        "plan": "gold", "topics": ["a", "b"], "vip": True, "visits": 3}}
    reply = client.invoke(command.SetTagsCommand(code, "pw-tags", {"ratio": 0.5}))
    assert reply["status_code"] == 210 and "ratio" in reply["status_message"]


class PushwooshNotification(notification.Notification):
    """pypushwoosh 0.3.1 leaves two fields of Pushwoosh's API out of the request it renders: it
    keeps ios_category_id but its IOSNotificationMixin.render omits it, and it has no attribute
    for `transactionId`. This adds both, as Pushwoosh's API has them."""

    transaction_id = None

    def render(self):
        rendered = super().render()
        if self.ios_category_id is not None:
            rendered["ios_category_id"] = self.ios_category_id
        if self.transaction_id is not None:
            rendered["transactionId"] = self.transaction_id
        return rendered


def test_message_with_a_category_reaches_the_sink_and_is_counted(server, client, app):
    code, token, category_id = app
    invoke(client, command.RegisterDeviceCommand(code, "pw-msg", constants.PLATFORM_IOS, PUSH_TOKEN, "fr"))
    note = PushwooshNotification()
    note.content = {"en": "Rate us?", "fr": "Notez-nous ?"}
    note.ios_category_id = category_id
    note.ios_badges = "+1"
    note.ios_sound = "default"
    note.devices = ["pw-msg"]
    note.data = {"order": 42}
    cmd = command.CreateMessageForApplicationCommand(note, code)
    cmd.auth = token
    message = invoke(client, cmd)["Messages"][0]

    [line] = wait_for_sink_lines(server, message)
    payload = line["payload"]
    assert payload["aps"]["category"] == str(category_id)
    assert payload["aps"]["alert"]["body"] == "Notez-nous ?"
    assert payload["aps"]["badge"] == 1
    assert json.loads(payload["u"]) == {"order": 42}

    # The delivery is counted for /metrics by gateway, platform and outcome.
    metrics = server.http_connection()
    metrics.request("GET", "/metrics")
    text = metrics.getresponse().read().decode()
    metrics.close()
    sent = [line for line in text.splitlines() if line.startswith('pushwire_deliveries_total{gateway="sink",platform="ios",outcome="sent"}')]
    assert sent and float(sent[0].rsplit(" ", 1)[1]) >= 1, text

    invoke(client, command.PushStatCommand(code, "pw-msg", message))
    # Pushwire's addition to pushStat: the button the user tapped.
    tap = command.PushStatCommand(code, "pw-msg", message)
    tap._command.update({"button_id": 0, "category_id": category_id})
    invoke(client, tap)

    stats = client.invoke(_StatsCommand(token, message))
    assert stats["status_code"] == 200, stats
    details = stats["response"]["message"]
    assert details["targeted"] == 1 and details["sent"] == 1 and details["opened"] >= 1
    assert {"button_id": 0, "label": "Rate", "count": 1} in details["taps"]


def test_set_badge_is_where_plus_n_badges_count_from(server, client, app):
    code, token, _ = app
    invoke(client, command.RegisterDeviceCommand(code, "pw-badge", constants.PLATFORM_IOS, PUSH_TOKEN, "en"))
    # The app reports what its icon shows (pypushwoosh sends it as `badges`).
    assert invoke(client, command.SetBadgeCommand(code, "pw-badge", 5)) is None

    def send(badges):
        note = notification.Notification()
        note.content = "Badge"
        note.ios_badges = badges
        note.devices = ["pw-badge"]
        cmd = command.CreateMessageForApplicationCommand(note, code)
        cmd.auth = token
        message = invoke(client, cmd)["Messages"][0]
        [line] = wait_for_sink_lines(server, message)
        return line["payload"]["aps"]["badge"]

    assert send("+1") == 6, "counted from the badge the app reported"
    assert send("+2") == 8, "then from the badge Pushwire sent"
    assert invoke(client, command.SetBadgeCommand(code, "pw-badge", 0)) is None
    assert send("+3") == 3, "a reported 0 (the user read everything) starts again"

    unknown = client.invoke(command.SetBadgeCommand(code, "nobody", 1))
    assert unknown["status_code"] == 210 and "nobody" in unknown["status_message"], unknown
    negative = client.invoke(command.SetBadgeCommand(code, "pw-badge", -1))
    assert negative["status_code"] == 210 and "badge" in negative["status_message"], negative


def test_users_platforms_root_params_trim_and_transaction_id(server, client, app):
    code, token, _ = app
    alice = command.RegisterDeviceCommand(code, "pw-alice", constants.PLATFORM_IOS, PUSH_TOKEN, "en")
    alice._command.update({"userId": "alice"})
    invoke(client, alice)
    bob = command.RegisterDeviceCommand(code, "pw-bob", constants.PLATFORM_IOS, "ef" * 32, "en")
    bob._command.update({"userId": "bob"})
    invoke(client, bob)
    # alice's Android phone: the same user, another platform.
    alice_android = command.RegisterDeviceCommand(code, "pw-alice-android", constants.PLATFORM_ANDROID, "fcm-token", "en")
    alice_android._command.update({"userId": "alice"})
    invoke(client, alice_android)

    note = PushwooshNotification()
    note.content = "long " * 2000  # far over APNs' 4096 bytes: trimmed, not refused
    note.users = ["alice"]
    note.platforms = [constants.PLATFORM_IOS]
    note.ios_root_params = {"deep_link": "app://offers"}
    note.apns_trim_content = True
    note.transaction_id = "offer-42"
    cmd = command.CreateMessageForApplicationCommand(note, code)
    cmd.auth = token
    message = invoke(client, cmd)["Messages"][0]
    # The same transactionId again creates nothing new: the same code comes back.
    again = command.CreateMessageForApplicationCommand(note, code)
    again.auth = token
    assert invoke(client, again)["Messages"] == [message]

    wait_for_sink_lines(server, message)
    time.sleep(0.3)  # a second line, were one wrongly sent, would be written with the first
    lines = sink_lines(server, message)
    assert [(line["token"], line["platform"]) for line in lines] == [(PUSH_TOKEN, "ios")], lines
    payload = lines[0]["payload"]
    assert payload["deep_link"] == "app://offers"
    body = payload["aps"]["alert"]["body"] if isinstance(payload["aps"]["alert"], dict) else payload["aps"]["alert"]
    assert body.startswith("long long") and len(body) < len(note.content)
    assert len(json.dumps(payload, ensure_ascii=False).encode()) <= 4096


class _StatsCommand(command.BaseAuthCommand):
    command_name = "getMsgStats"

    def __init__(self, auth, message):
        command.BaseAuthCommand.__init__(self)
        self.auth = auth
        self._command["message"] = message


def test_delete_and_refusals(client, app):
    code, token, _ = app
    later = notification.Notification()
    later.content = "later"
    # A month ahead, in UTC (the server refuses more than 366 days ahead).
    later.send_date = time.strftime("%Y-%m-%d %H:%M", time.gmtime(time.time() + 30 * 86400))
    later.ignore_user_timezone = True
    cmd = command.CreateMessageForApplicationCommand(later, code)
    cmd.auth = token
    message = invoke(client, cmd)["Messages"][0]
    delete = command.DeleteMessageCommand(message)
    delete.auth = token
    assert invoke(client, delete) is None

    def refused(**fields):
        note = notification.Notification()
        note.content = "x"
        for key, value in fields.items():
            setattr(note, key, value)
        cmd = command.CreateMessageForApplicationCommand(note, code)
        cmd.auth = token
        reply = client.invoke(cmd)
        assert reply["status_code"] == 210, reply
        return reply["status_message"]

    assert "link" in refused(link="https://example.com")
    assert "ignore_user_timezone" in refused(send_date=later.send_date)
    assert "android_header" in refused(android_header="x")
    bad_token = command.CreateMessageForApplicationCommand(notification.Notification(), code)
    bad_token.notifications[0].content = "x"
    bad_token.auth = "not-a-token"
    assert client.invoke(bad_token)["status_code"] == 401
