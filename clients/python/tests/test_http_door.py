"""pushwired's HTTP door over real sockets (`http.client`): every method as Connect-style JSON and
as binary protobuf, their errors and HTTP statuses, auth, keep-alive, /healthz and /metrics
(checked with Debian's promtool when installed)."""
from __future__ import annotations

import json
import shutil
import subprocess
import time

import pytest

from pushwire.v1 import admin_pb2, categories_pb2, devices_pb2, health_pb2, messages_pb2, reflection_pb2

HWID = "door-device-1"
PUSH_TOKEN = "ab" * 32


@pytest.fixture
def door(server):
    if server.http_port is None:
        pytest.skip("pushwired printed no 'HTTP listening on' line")
    connection = server.http_connection()
    yield connection
    connection.close()


def call(door, method, body, token=None, headers=None):
    """POSTs proto3 JSON to /pushwire.v1.<method>; returns (status, parsed JSON)."""
    all_headers = {"Content-Type": "application/json"}
    if token:
        all_headers["Authorization"] = f"Bearer {token}"
    all_headers.update(headers or {})
    door.request("POST", f"/pushwire.v1.{method}", body=json.dumps(body), headers=all_headers)
    response = door.getresponse()
    return response.status, json.loads(response.read() or b"null")


def call_proto(door, method, message, response_type, token=None):
    headers = {"Content-Type": "application/proto"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    door.request("POST", f"/pushwire.v1.{method}", body=message.SerializeToString(), headers=headers)
    response = door.getresponse()
    body = response.read()
    assert response.status == 200, body
    assert response.getheader("Content-Type") == "application/proto"
    return response_type.FromString(body)


def ok(door, method, body, token=None):
    status, reply = call(door, method, body, token)
    assert status == 200, (method, reply)
    return reply


def test_every_method_as_json_on_one_keep_alive_connection(server, door):
    called = set()

    def run(method, body, token=None):
        called.add(f"/pushwire.v1.{method}")
        return ok(door, method, body, token)

    assert run("Health/Check", {})["status"] == "SERVING_STATUS_SERVING"
    created = run("Admin/CreateApplication", {"name": "door-json"}, server.admin_token)
    app, token = created["application"]["code"], created["accessToken"]
    run("Admin/UpdateApplication", {"application": app, "name": "door-json-renamed"}, server.admin_token)
    listed = run("Admin/ListApplications", {}, server.admin_token)
    assert "door-json-renamed" in [a["name"] for a in listed["applications"]]
    upserted = run("Categories/UpsertCategory", {"category": {"name": "RateLater", "buttons": [
        {"id": 0, "label": "Rate", "startApplication": True, "authenticationRequired": True, "behavior": "BUTTON_BEHAVIOR_DEFAULT"},
        {"id": 1, "label": "Later", "behavior": "BUTTON_BEHAVIOR_DEFAULT"}]}}, token)
    category_id = upserted["category"]["categoryId"]
    names = [c["name"] for c in run("Categories/ListCategories", {}, token)["categories"]]
    assert "RateLater" in names and "YesNo" in names
    registered = run("Devices/RegisterDevice", {"application": app, "hwid": HWID, "pushToken": PUSH_TOKEN,
                                                "deviceType": "DEVICE_TYPE_IOS", "language": "en"})
    version = registered["categoriesVersion"]
    assert run("Devices/SyncCategories", {"application": app, "knownVersion": version})["notModified"]
    tags = run("Devices/SetTags", {"application": app, "hwid": HWID, "updates": [
        {"name": "plan", "set": {"stringValue": "gold"}}, {"name": "visits", "increment": "2"}]})
    assert {"name": "plan", "value": {"stringValue": "gold"}} in tags["tags"]
    got = run("Devices/GetTags", {"application": app, "hwid": HWID})
    assert {"name": "visits", "value": {"intValue": "2"}} in got["tags"]
    sent = run("Messages/CreateMessage", {"notifications": [{"content": "Rate us?", "iosCategoryId": category_id,
                                                            "targeting": {"devices": [HWID]}}]}, token)
    code = sent["messageCodes"][0]
    run("Devices/TrackAction", {"application": app, "hwid": HWID, "messageCode": code, "kind": "ACTION_KIND_BUTTON",
                                "categoryId": category_id, "buttonId": 0})
    run("Devices/SetBadge", {"application": app, "hwid": HWID, "badge": 4})
    details = run("Messages/GetMessageDetails", {"messageCode": code}, token)
    assert details["messageCode"] == code
    later = run("Messages/CreateMessage", {"notifications": [{"content": "later", "sendAtMs": str(int(time.time() * 1000) + 3_600_000)}]}, token)
    run("Messages/DeleteMessage", {"messageCode": later["messageCodes"][0]}, token)
    listed = run("Messages/ListMessages", {"pageSize": 1}, token)
    assert [m["messageCode"] for m in listed["messages"]] == later["messageCodes"] and listed["nextPageToken"]
    assert run("Messages/CountTargets", {"targeting": {"devices": [HWID]}}, token)["devices"] == "1"
    preview = run("Messages/PreviewNotification", {"notification": {"content": "Rate us?", "iosCategoryId": category_id}}, token)
    assert '"body":"Rate us?"' in preview["payloads"][0]["apnsPayload"]
    assert run("Messages/GetDevice", {"hwid": HWID}, token)["tokenState"] == "TOKEN_STATE_LIVE"
    assert run("Categories/DeleteCategory", {"categoryId": category_id}, token)["categoriesVersion"]
    run("Devices/UnregisterDevice", {"application": app, "hwid": HWID})
    methods = run("Reflection/ListMethods", {})["methods"]
    assert {m["path"] for m in methods} == called, "every method of the server was called over HTTP"


def test_binary_protobuf_bodies(server, door):
    assert call_proto(door, "Health/Check", health_pb2.HealthCheckRequest(), health_pb2.HealthCheckResponse).status \
        == health_pb2.SERVING_STATUS_SERVING
    created = call_proto(door, "Admin/CreateApplication", admin_pb2.CreateApplicationRequest(name="door-proto"),
                         admin_pb2.CreateApplicationResponse, token=server.admin_token)
    registered = call_proto(door, "Devices/RegisterDevice", devices_pb2.RegisterDeviceRequest(
        application=created.application.code, hwid="proto-1", push_token=PUSH_TOKEN, device_type=1),
        devices_pb2.RegisterDeviceResponse)
    assert [c.name for c in registered.ios_categories] == ["YesNo"]
    synced = call_proto(door, "Devices/SyncCategories", devices_pb2.SyncCategoriesRequest(
        application=created.application.code, known_version=registered.categories_version),
        devices_pb2.SyncCategoriesResponse)
    assert synced.not_modified
    listed = call_proto(door, "Categories/ListCategories", categories_pb2.ListCategoriesRequest(),
                        categories_pb2.ListCategoriesResponse, token=created.access_token)
    assert listed.categories[0].name == "YesNo"
    assert call_proto(door, "Reflection/ListMethods", reflection_pb2.ListMethodsRequest(),
                      reflection_pb2.ListMethodsResponse).methods
    details = messages_pb2.GetMessageDetailsRequest(message_code="none")
    door.request("POST", "/pushwire.v1.Messages/GetMessageDetails", body=details.SerializeToString(),
                 headers={"Content-Type": "application/proto", "Authorization": f"Bearer {created.access_token}"})
    response = door.getresponse()
    # Errors are JSON whatever the request's codec, as Connect's unary protocol has them.
    assert response.status in (400, 404) and json.loads(response.read())["code"] in ("invalid_argument", "not_found")


def test_errors_carry_connects_codes_and_statuses(server, door):
    status, reply = call(door, "Admin/ListApplications", {})
    assert (status, reply["code"]) == (401, "unauthenticated") and reply["message"]
    status, reply = call(door, "Admin/ListApplications", {}, token="wrong")
    assert status in (401, 403) and reply["code"] in ("unauthenticated", "permission_denied")
    status, reply = call(door, "Devices/RegisterDevice", {"application": "NOAPP-00000", "hwid": "x", "pushToken": PUSH_TOKEN,
                                                          "deviceType": "DEVICE_TYPE_IOS"})
    assert (status, reply["code"]) == (404, "not_found")
    status, reply = call(door, "Devices/RegisterDevice", {"hwidd": "x"})
    assert (status, reply["code"]) == (400, "invalid_argument") and "hwidd" in reply["message"]
    status, reply = call(door, "Devices/Nothing", {})
    assert (status, reply["code"]) == (404, "unimplemented")
    # Nothing above disturbed the connection.
    assert ok(door, "Health/Check", {})["status"] == "SERVING_STATUS_SERVING"


def test_healthz_and_metrics(server, door):
    door.request("GET", "/healthz")
    response = door.getresponse()
    health = json.loads(response.read())
    assert response.status == 200 and health["status"] == "serving"
    assert health["checks"]["store"]["serving"] is True

    def scrape():
        door.request("GET", "/metrics")
        response = door.getresponse()
        assert response.status == 200
        return response.read().decode()

    def value(text, prefix):
        for line in text.splitlines():
            if line.startswith(prefix):
                return float(line.rsplit(" ", 1)[1])
        return 0.0

    key = 'pushwire_calls_total{method="/pushwire.v1.Health/Check",code="OK"}'
    before = value(scrape(), key)
    for _ in range(3):
        ok(door, "Health/Check", {})
    after = scrape()
    assert value(after, key) == before + 3
    assert value(after, 'pushwire_connections{door="http"}') >= 1
    assert "pushwire_store_commit_duration_seconds" in after
    promtool = shutil.which("promtool")
    if promtool:
        checked = subprocess.run([promtool, "check", "metrics"], input=after, capture_output=True, text=True)
        assert checked.returncode == 0, checked.stdout + checked.stderr
