"""The Python client against a real pushwired (started by the `server` fixture in conftest.py).
Steps whose method answers UNIMPLEMENTED on this server are skipped with that reason."""
from __future__ import annotations

import socket
import struct

import pytest

from pushwire import Client, PushwireError, StatusCode
from pushwire.v1 import categories_pb2, common_pb2, devices_pb2, health_pb2

PUSH_TOKEN = "5d1c7a3e" * 8


@pytest.fixture
def client(server):
    with Client(server.host, server.port, timeout=10, **server.tls) as c:
        yield c


def call_or_skip(method, *args, **kwargs):
    """Calls; skips the test when the server does not implement the method yet."""
    try:
        return method(*args, **kwargs)
    except PushwireError as error:
        if error.code is StatusCode.UNIMPLEMENTED:
            pytest.skip(f"{method.info.path} answers UNIMPLEMENTED on this server: {error.message}")
        raise


def expect_code(codes, method, *args, **kwargs):
    with pytest.raises(PushwireError) as info:
        call_or_skip(method, *args, **kwargs)
    assert info.value.code in codes, f"{info.value.code.name}: {info.value.message}"
    assert not info.value.local
    return info.value


def test_settings(client):
    assert client.settings.protocol_version == 1
    assert client.settings.max_frame_size > 0
    assert client.settings.server_name


def test_health(client):
    assert client.health.check().status == health_pb2.SERVING_STATUS_SERVING
    unknown = client.health.check(service="pushwire.v1.NoSuchService")
    assert unknown.status == health_pb2.SERVING_STATUS_SERVICE_UNKNOWN


def test_reflection_agrees_with_the_proto_files(client):
    from pushwire import METHODS
    listed = client.reflection.list_methods().methods
    paths = [m.path for m in listed]
    assert "/pushwire.v1.Health/Check" in paths
    assert paths == sorted(paths)
    for method in listed:
        if method.path in METHODS:
            assert method.request_type == METHODS[method.path].request_type.DESCRIPTOR.full_name
            assert method.response_type == METHODS[method.path].response_type.DESCRIPTOR.full_name


def test_unknown_method_is_unimplemented(client):
    with pytest.raises(PushwireError) as info:
        client.call("/pushwire.v1.Nope/Nothing", health_pb2.HealthCheckRequest(),
                    health_pb2.HealthCheckResponse)
    assert info.value.code is StatusCode.UNIMPLEMENTED


def test_undecodable_request_is_invalid_argument(server):
    """Raw socket: a Health/Check whose message is not a HealthCheckRequest."""
    from pushwire import PREFACE, FrameDecoder, encode_frame
    from pushwire.v1 import rpc_pb2
    with socket.create_connection((server.host, server.port), timeout=10) as sock:
        if server.tls:
            import ssl
            sock = ssl.create_default_context(cafile=server.tls["ca_file"]).wrap_socket(sock, server_hostname=server.host)
        frame = rpc_pb2.Frame(call_id=5)
        frame.request.method = "/pushwire.v1.Health/Check"
        frame.request.message = b"\x0a\xff\xff\xff\xff\x0f"
        sock.sendall(PREFACE + encode_frame(frame))
        decoder = FrameDecoder(expects_preface=True)
        answers = []
        while not answers:
            data = sock.recv(65536)
            assert data, "server closed the connection"
            decoder.append(data)
            while (f := decoder.next_frame()) is not None:
                if f.WhichOneof("kind") == "response":
                    answers.append(f)
    assert answers[0].call_id == 5
    assert answers[0].response.status.code == StatusCode.INVALID_ARGUMENT


def test_pipelined_calls(client):
    futures = [client.health.check.future() for _ in range(100)]
    assert all(f.result().status == health_pb2.SERVING_STATUS_SERVING for f in futures)
    assert client.in_flight == 0
    assert client.ping() < 5


def test_deadline_is_sent(client):
    """A generous deadline changes nothing for a fast call; timeout_ms travels on the wire."""
    assert client.health.check(timeout=0.5).status == health_pb2.SERVING_STATUS_SERVING


# ---- registration (the registry services) ----

def test_admin_needs_the_admin_token(server, client):
    expect_code({StatusCode.UNAUTHENTICATED}, client.admin.list_applications)
    expect_code({StatusCode.UNAUTHENTICATED, StatusCode.PERMISSION_DENIED},
                client.admin.list_applications, metadata={"authorization": "Bearer wrong"})


@pytest.fixture
def application(server, client):
    created = call_or_skip(client.admin.create_application, name="python-integration",
                           metadata={"authorization": f"Bearer {server.admin_token}"})
    assert created.application.code and created.access_token
    return created


def register(client, app_code, hwid="py-device-1", **fields):
    return call_or_skip(client.devices.register_device, application=app_code, hwid=hwid,
                        push_token=PUSH_TOKEN, device_type=common_pb2.DEVICE_TYPE_IOS,
                        language="en", **fields)


def test_register_device_and_sync(client, application):
    code = application.application.code
    registered = register(client, code)
    names = [c.name for c in registered.ios_categories]
    assert "YesNo" in names
    yes_no = registered.ios_categories[names.index("YesNo")]
    assert [b.label for b in yes_no.buttons] == ["Yes", "No"]
    assert yes_no.buttons[0].start_application and not yes_no.buttons[1].start_application

    synced = call_or_skip(client.devices.sync_categories, application=code,
                          known_version=registered.categories_version)
    assert synced.not_modified

    category = categories_pb2.Category(name="RateLater")
    category.buttons.add(id=0, label="Rate", start_application=True, authentication_required=True,
                         behavior=categories_pb2.BUTTON_BEHAVIOR_DEFAULT)
    category.buttons.add(id=1, label="Later", behavior=categories_pb2.BUTTON_BEHAVIOR_DEFAULT)
    expect_code({StatusCode.UNAUTHENTICATED}, client.categories.upsert_category, category=category)
    upserted = call_or_skip(client.categories.upsert_category, category=category,
                            metadata={"authorization": f"Bearer {application.access_token}"})
    assert upserted.categories_version > registered.categories_version

    changed = client.devices.sync_categories(application=code, known_version=registered.categories_version)
    assert not changed.not_modified
    assert changed.version == upserted.categories_version
    assert sorted(c.name for c in changed.categories) == sorted(names + ["RateLater"])

    again = register(client, code, known_categories_version=upserted.categories_version)
    assert again.categories_not_modified


def test_registration_errors(client, application):
    code = application.application.code
    expect_code({StatusCode.INVALID_ARGUMENT}, client.devices.register_device, application=code, hwid="",
                push_token=PUSH_TOKEN, device_type=common_pb2.DEVICE_TYPE_IOS)
    expect_code({StatusCode.NOT_FOUND}, client.devices.register_device, application="NOAPP-00000",
                hwid="x", push_token=PUSH_TOKEN, device_type=common_pb2.DEVICE_TYPE_IOS)


def test_another_applications_token_cannot_see_my_categories(server, client, application):
    other = call_or_skip(client.admin.create_application, name="other",
                         metadata={"authorization": f"Bearer {server.admin_token}"})
    category = categories_pb2.Category(name="OnlyMine")
    category.buttons.add(id=0, label="Mine", behavior=categories_pb2.BUTTON_BEHAVIOR_DEFAULT)
    call_or_skip(client.categories.upsert_category, category=category,
                 metadata={"authorization": f"Bearer {application.access_token}"})
    mine = client.categories.list_categories(metadata={"authorization": f"Bearer {application.access_token}"})
    theirs = client.categories.list_categories(metadata={"authorization": f"Bearer {other.access_token}"})
    assert "OnlyMine" in [c.name for c in mine.categories]
    assert "OnlyMine" not in [c.name for c in theirs.categories]


def test_a_calls_token_replaces_the_clients(server, application):
    """The server refuses two authorization entries; a per-call token replaces the client's."""
    with Client(server.host, server.port, timeout=10, token="not-a-token", **server.tls) as c:
        expect_code({StatusCode.UNAUTHENTICATED}, c.categories.list_categories)
        listed = c.categories.list_categories(metadata={"authorization": f"Bearer {application.access_token}"})
        assert "YesNo" in [category.name for category in listed.categories]


def test_track_action(client, application):
    code = application.application.code
    registered = register(client, code)
    first = registered.ios_categories[0]
    with pytest.raises(PushwireError) as raised:
        client.devices.track_action(application=code, hwid="py-device-1",
                                    message_code="no-such-message", kind=devices_pb2.ACTION_KIND_BUTTON,
                                    category_id=first.category_id, button_id=first.buttons[0].id)
    assert raised.value.code is StatusCode.NOT_FOUND


def test_message_send_and_tap_counted(server, client, application):
    """Issue 8's full loop: a message to the device (delivered to the server's sink), a tap on
    its first button, and GetMessageDetails counting it. Skipped while Messages is UNIMPLEMENTED."""
    import time
    from pushwire.v1 import messages_pb2
    code = application.application.code
    registered = register(client, code, hwid="py-device-msg")
    yes_no = next(c for c in registered.ios_categories if c.name == "YesNo")
    auth = {"authorization": f"Bearer {application.access_token}"}
    notification = messages_pb2.Notification(content="Coming tonight?", ios_category_id=yes_no.category_id)
    notification.targeting.devices.append("py-device-msg")
    created = call_or_skip(client.messages.create_message,
                           messages_pb2.CreateMessageRequest(notifications=[notification]), metadata=auth)
    assert len(created.message_codes) == 1 and not created.unknown_devices
    message_code = created.message_codes[0]
    tapped = call_or_skip(client.devices.track_action, application=code, hwid="py-device-msg",
                          message_code=message_code, kind=devices_pb2.ACTION_KIND_BUTTON,
                          category_id=yes_no.category_id, button_id=yes_no.buttons[0].id)
    assert tapped.recorded
    deadline = time.monotonic() + 10  # delivery and counting may lag the acknowledgement
    while True:
        details = call_or_skip(client.messages.get_message_details, message_code=message_code, metadata=auth)
        taps = {t.button_id: t.count for t in details.taps}
        done = details.status == messages_pb2.MESSAGE_STATUS_DONE
        if (done and taps.get(yes_no.buttons[0].id) == 1) or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert details.status == messages_pb2.MESSAGE_STATUS_DONE
    assert details.targeted == 1 and details.sent == 1
    assert taps.get(yes_no.buttons[0].id) == 1
