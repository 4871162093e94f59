"""The asyncio client against the scripted fake server, and against a real pushwired."""
from __future__ import annotations

import asyncio

import pytest

from fake_server import FakeServer
from pushwire import AsyncClient, PushwireError, StatusCode
from pushwire.v1 import health_pb2, reflection_pb2, rpc_pb2


def test_gather_answers_out_of_order_with_metadata_and_errors():
    def script(conn):
        frames = [conn.read_frame() for _ in range(10)]
        for frame in reversed(frames):
            meta = {m.key: m.value for m in frame.request.metadata}
            assert meta["authorization"] == "Bearer tok"
            n = int(meta["x-n"])
            if n == 3:
                conn.answer(frame.call_id, 5, "no such thing")
            else:
                reply = reflection_pb2.ListMethodsResponse()
                reply.methods.add(path=str(n))
                conn.answer(frame.call_id, body=reply)
        conn.read_frame()

    server = FakeServer(script)

    async def main():
        async with await AsyncClient.connect("127.0.0.1", server.port, timeout=5, token="tok") as client:
            results = await asyncio.gather(
                *(client.reflection.list_methods(metadata={"x-n": str(n)}) for n in range(10)),
                return_exceptions=True)
            return results

    results = asyncio.run(main())
    for n, result in enumerate(results):
        if n == 3:
            assert isinstance(result, PushwireError) and result.code is StatusCode.NOT_FOUND
        else:
            assert result.methods[0].path == str(n)
    assert server.join() == []


def test_deadline_and_task_cancel_send_cancel():
    def script(conn):
        first = conn.read_frame()
        assert first.request.timeout_ms == 200
        cancel = conn.read_frame()
        assert cancel.WhichOneof("kind") == "cancel" and cancel.call_id == first.call_id
        second = conn.read_frame()
        cancel = conn.read_frame()
        assert cancel.WhichOneof("kind") == "cancel" and cancel.call_id == second.call_id
        ping = conn.read_frame()
        pong = rpc_pb2.Frame()
        pong.pong.payload = ping.ping.payload
        conn.send(pong)
        conn.read_frame()

    server = FakeServer(script)

    async def main():
        client = await AsyncClient.connect("127.0.0.1", server.port, timeout=5)
        with pytest.raises(PushwireError) as info:
            await client.health.check(timeout=0.2)
        assert info.value.code is StatusCode.DEADLINE_EXCEEDED
        task = asyncio.ensure_future(client.health.check(timeout=5))
        await asyncio.sleep(0.2)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert await client.ping() >= 0
        assert client.in_flight == 0
        await client.close()

    asyncio.run(main())
    assert server.join() == []


def test_async_against_pushwired(server):
    async def main():
        async with await AsyncClient.connect(server.host, server.port, timeout=10, **server.tls) as client:
            answers = await asyncio.gather(*(client.health.check() for _ in range(50)))
            assert all(a.status == health_pb2.SERVING_STATUS_SERVING for a in answers)
            with pytest.raises(PushwireError) as info:
                await client.call("/pushwire.v1.Nope/Nothing", health_pb2.HealthCheckRequest(),
                                  health_pb2.HealthCheckResponse)
            assert info.value.code is StatusCode.UNIMPLEMENTED
            await client.ping()

    asyncio.run(main())


def test_async_connection_refused_is_unavailable():
    import socket
    probe = socket.create_server(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    with pytest.raises(PushwireError) as info:
        asyncio.run(AsyncClient.connect("127.0.0.1", port, timeout=2))
    assert info.value.code is StatusCode.UNAVAILABLE
