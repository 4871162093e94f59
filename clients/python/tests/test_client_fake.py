"""The Client against a scripted fake server: pipelining from many threads with answers out of
order, metadata and deadlines on the wire, error statuses, local deadline → Cancel, cancel(),
Ping both ways, GoAway, a dropped connection, a wrong preface and the send-size limit."""
from __future__ import annotations

import threading

import pytest

from fake_server import FakeServer
from pushwire import Client, FrameTooLarge, ProtocolError, PushwireError, StatusCode
from pushwire.v1 import health_pb2, reflection_pb2


def echo_methods(path: str) -> reflection_pb2.ListMethodsResponse:
    response = reflection_pb2.ListMethodsResponse()
    response.methods.add(path=path)
    return response


def run(script, **kwargs):
    server = FakeServer(script, **kwargs)
    return server, Client("127.0.0.1", server.port, timeout=5)


def test_settings_and_pipelined_calls_from_many_threads_answered_in_reverse():
    count = 24
    seen = {}

    def script(conn):
        frames = [conn.read_frame() for _ in range(count)]
        for frame in reversed(frames):
            echo = dict((m.key, m.value) for m in frame.request.metadata)
            seen[frame.call_id] = (frame.request.timeout_ms, echo)
            conn.answer(frame.call_id, body=echo_methods(echo["x-n"]))
        conn.read_frame()  # until the client closes

    server, client = run(script, max_concurrent_calls=64)
    assert client.settings.server_name == "fake"
    results = {}
    barrier = threading.Barrier(4)

    def worker(offset):
        barrier.wait()
        futures = [(n, client.reflection.list_methods.future(metadata={"x-n": str(n)}, timeout=4))
                   for n in range(offset, count, 4)]
        for n, future in futures:
            results[n] = future.result().methods[0].path

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert results == {n: str(n) for n in range(count)}
    assert len(seen) == count and all(t == 4000 for t, _ in seen.values())
    client.close()
    assert server.join() == []


def test_token_and_error_status():
    def script(conn):
        frame = conn.read_frame()
        meta = {m.key: m.value for m in frame.request.metadata}
        assert meta == {"authorization": "Bearer s3cret", "x-trace": "1"}
        assert frame.request.method == "/pushwire.v1.Categories/ListCategories"
        conn.answer(frame.call_id, 7, "token of another application")
        conn.read_frame()

    server = FakeServer(script)
    client = Client("127.0.0.1", server.port, timeout=5, token="s3cret")
    with pytest.raises(PushwireError) as info:
        client.categories.list_categories(metadata=[("X-Trace", "1")])
    assert info.value.code is StatusCode.PERMISSION_DENIED
    assert info.value.message == "token of another application"
    assert not info.value.local
    client.close()
    assert server.join() == []


def test_local_deadline_cancels_the_call_and_drops_the_late_answer():
    def script(conn):
        slow = conn.read_frame()
        assert slow.request.timeout_ms == 200
        cancel = conn.read_frame()
        assert cancel.WhichOneof("kind") == "cancel" and cancel.call_id == slow.call_id
        conn.answer(slow.call_id, 1, "cancelled")  # late: must be ignored
        nxt = conn.read_frame()
        conn.answer(nxt.call_id, body=health_pb2.HealthCheckResponse(status=1))
        conn.read_frame()

    server, client = run(script)
    with pytest.raises(PushwireError) as info:
        client.health.check(timeout=0.2)
    assert info.value.code is StatusCode.DEADLINE_EXCEEDED and info.value.local
    assert client.health.check().status == health_pb2.SERVING_STATUS_SERVING
    client.close()
    assert server.join() == []


def test_cancel_sends_cancel():
    def script(conn):
        call = conn.read_frame()
        cancel = conn.read_frame()
        assert cancel.WhichOneof("kind") == "cancel" and cancel.call_id == call.call_id
        conn.read_frame()

    server, client = run(script)
    future = client.health.check.future(service="x")
    future.cancel()
    with pytest.raises(PushwireError) as info:
        future.result()
    assert info.value.code is StatusCode.CANCELLED
    assert client.in_flight == 0
    client.close()
    assert server.join() == []


def test_ping_both_ways():
    def script(conn):
        ping = conn.read_frame()
        assert ping.WhichOneof("kind") == "ping" and ping.call_id == 0
        from pushwire.v1 import rpc_pb2
        mine = rpc_pb2.Frame()
        mine.ping.payload = 77
        conn.send(mine)
        pong = conn.read_frame()
        assert pong.pong.payload == 77
        answer = rpc_pb2.Frame()
        answer.pong.payload = ping.ping.payload
        conn.send(answer)
        conn.read_frame()

    server, client = run(script)
    assert client.ping(timeout=5) >= 0
    client.close()
    assert server.join() == []


def test_go_away_fails_only_calls_above_last_call_id():
    def script(conn):
        first, second = conn.read_frame(), conn.read_frame()
        from pushwire.v1 import rpc_pb2
        go = rpc_pb2.Frame()
        go.go_away.last_call_id = first.call_id
        go.go_away.status.SetInParent()
        conn.send(go)
        conn.answer(first.call_id, body=health_pb2.HealthCheckResponse(status=2))

    server, client = run(script)
    a = client.health.check.future()
    b = client.health.check.future()
    assert a.result().status == health_pb2.SERVING_STATUS_NOT_SERVING
    with pytest.raises(PushwireError) as info:
        b.result()
    assert info.value.code is StatusCode.UNAVAILABLE and "going away" in info.value.message
    with pytest.raises(PushwireError):
        client.health.check()
    client.close()
    assert server.join() == []


def test_connection_drop_fails_pending_calls():
    def script(conn):
        conn.read_frame()  # then close without answering

    server, client = run(script)
    with pytest.raises(PushwireError) as info:
        client.health.check()
    assert info.value.code is StatusCode.UNAVAILABLE
    client.close()
    assert server.join() == []


def test_wrong_preface():
    server = FakeServer(lambda conn: None, preface=b"HTTP/1.1 400 Bad Request\r\n\r\n")
    with pytest.raises(ProtocolError):
        Client("127.0.0.1", server.port, timeout=5)
    server.join()


def test_send_limit_from_settings():
    def script(conn):
        frame = conn.read_frame()
        conn.answer(frame.call_id, body=health_pb2.HealthCheckResponse(status=1))
        conn.read_frame()

    server, client = run(script, max_frame_size=128)
    with pytest.raises(FrameTooLarge):
        client.health.check(service="x" * 200)
    assert client.in_flight == 0
    assert client.health.check(service="ok").status == 1
    client.close()
    assert server.join() == []


def test_wrong_request_type_is_refused_locally():
    def script(conn):
        conn.read_frame()

    server, client = run(script)
    with pytest.raises(TypeError):
        client.health.check(reflection_pb2.ListMethodsRequest())
    client.close()
    server.join()


def test_calls_beyond_max_concurrent_calls_wait_for_a_slot():
    def script(conn):
        first = [conn.read_frame() for _ in range(16)]  # the fake announces 16
        for frame in first[:4]:
            conn.answer(frame.call_id, body=health_pb2.HealthCheckResponse(status=1))
        rest = [conn.read_frame() for _ in range(4)]
        for frame in first[4:] + rest:
            conn.answer(frame.call_id, body=health_pb2.HealthCheckResponse(status=1))
        ids = [f.call_id for f in first + rest]
        assert ids == sorted(ids) and len(set(ids)) == 20
        conn.read_frame()

    server, client = run(script)
    futures = [client.health.check.future() for _ in range(20)]
    assert all(f.result().status == 1 for f in futures)
    client.close()
    assert server.join() == []


def test_error_go_away_reason_reaches_pending_calls():
    def script(conn):
        conn.read_frame()
        from pushwire.v1 import rpc_pb2
        go = rpc_pb2.Frame()
        go.go_away.last_call_id = 0
        go.go_away.status.code = 8
        go.go_away.status.message = "frame too large"
        conn.send(go)

    server, client = run(script)
    with pytest.raises(PushwireError) as info:
        client.health.check()
    assert info.value.code is StatusCode.UNAVAILABLE
    client.close()
    assert server.join() == []


def test_connection_refused_is_unavailable():
    import socket
    probe = socket.create_server(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # nothing listens there now
    with pytest.raises(PushwireError) as info:
        Client("127.0.0.1", port, timeout=2)
    assert info.value.code is StatusCode.UNAVAILABLE and info.value.local
