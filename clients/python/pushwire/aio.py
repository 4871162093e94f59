"""The asyncio variant of the client: ``client = await AsyncClient.connect(host, port)``, then
``await client.devices.register_device(...)``. Many calls may be awaited at once (e.g. with
``asyncio.gather``); one reader task matches answers to calls by id."""
from __future__ import annotations

import asyncio
import itertools
import os
import ssl
import time
from typing import Any

from google.protobuf.message import Message

from pushwire.client import call_metadata, decode_response, metadata_pairs, request_frame
from pushwire.framing import DEFAULT_MAX_FRAME_SIZE, PREFACE, FrameDecoder, encode_frame
from pushwire.services import METHODS, attach_services
from pushwire.status import ProtocolError, PushwireError, StatusCode
from pushwire.tls import check_alpn, handshake_error, resolve_context
from pushwire.v1 import rpc_pb2


class AsyncClient:
    """A connection to a Pushwire server for asyncio code.

    Create it with ``await AsyncClient.connect(host, port, timeout=10.0, token=None,
    metadata=None)``; the arguments mean what they mean for :class:`pushwire.Client`. Each
    service is an attribute with a coroutine method per RPC. A call whose deadline passes, or whose
    task is cancelled, sends Cancel to the server.
    """

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 decoder: FrameDecoder, settings: rpc_pb2.Settings, timeout: float,
                 default_metadata: list[tuple[str, str]]):
        self.settings = settings
        self.timeout = timeout
        self._reader, self._writer, self._decoder = reader, writer, decoder
        self._default_metadata = default_metadata
        self._max_send = settings.max_frame_size or DEFAULT_MAX_FRAME_SIZE
        self._slots = asyncio.Semaphore(settings.max_concurrent_calls or 2**31)
        self._pending: dict[int, asyncio.Future] = {}
        self._pings: dict[int, asyncio.Future] = {}
        self._ids = itertools.count(1)
        self._closed: PushwireError | None = None
        self._go_away_last: int | None = None
        self._task = asyncio.get_running_loop().create_task(self._read_loop())
        for name, stub in attach_services(self).items():
            setattr(self, name, stub)

    @classmethod
    async def connect(cls, host: str = "127.0.0.1", port: int = 7355, *, timeout: float = 10.0,
                      token: str | None = None, metadata: Any = None,
                      max_frame_size: int = DEFAULT_MAX_FRAME_SIZE,
                      tls: "ssl.SSLContext | bool | None" = None, ca_file: str | None = None,
                      server_name: str | None = None, client_cert: str | None = None,
                      client_key: str | None = None) -> "AsyncClient":
        """Connects, exchanges the preface and reads the server's Settings within ``timeout``.

        The TLS arguments mean what they mean for :class:`pushwire.Client`."""
        defaults = metadata_pairs(metadata)
        if token:
            defaults.append(("authorization", f"Bearer {token}"))
        context = resolve_context(tls, ca_file, client_cert, client_key)
        tls_arguments = {} if context is None else {"ssl": context, "server_hostname": server_name or host}
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port, **tls_arguments), timeout)
        except (ssl.SSLError, ssl.CertificateError) as exc:
            raise handshake_error(exc, host, port) from exc
        except (OSError, asyncio.TimeoutError) as exc:
            raise PushwireError(StatusCode.UNAVAILABLE, f"cannot connect to {host}:{port}: {exc!r}",
                                local=True) from exc
        decoder = FrameDecoder(max_frame_size, expects_preface=True)
        try:
            if context is not None:
                check_alpn(writer.get_extra_info("ssl_object").selected_alpn_protocol(), host, port)
            writer.write(PREFACE)
            first = await asyncio.wait_for(cls._first_frame(reader, decoder), timeout)
            if first.WhichOneof("kind") != "settings":
                raise ProtocolError(f"expected settings after the preface, got {first.WhichOneof('kind')}")
        except BaseException:
            writer.close()
            raise
        return cls(reader, writer, decoder, first.settings, timeout, defaults)

    @staticmethod
    async def _first_frame(reader: asyncio.StreamReader, decoder: FrameDecoder) -> rpc_pb2.Frame:
        while (frame := decoder.next_frame()) is None:
            data = await reader.read(65536)
            if not data:
                raise PushwireError(StatusCode.UNAVAILABLE, "server closed the connection", local=True)
            decoder.append(data)
        return frame

    async def close(self) -> None:
        """Closes the connection; calls still in flight fail with UNAVAILABLE."""
        self._writer.close()
        self._task.cancel()
        try:
            await self._task
        except (asyncio.CancelledError, Exception):
            pass
        self._fail_all(PushwireError(StatusCode.UNAVAILABLE, "connection closed", local=True))

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    def _write(self, frame: rpc_pb2.Frame) -> None:
        # StreamWriter.write never blocks; one event loop thread means frames never interleave.
        self._writer.write(encode_frame(frame, self._max_send))

    async def _invoke(self, method: str, request: Message, response_type: type[Message], *,
                      timeout: float | None, metadata: Any) -> Message:
        timeout = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout if timeout and timeout > 0 else None
        frame = request_frame(method, request, timeout if deadline else None,
                              call_metadata(self._default_metadata, metadata))
        encode_frame(frame, self._max_send)  # FrameTooLarge before waiting for a slot
        try:
            await asyncio.wait_for(self._slots.acquire(), None if deadline is None else max(0.0, deadline - time.monotonic()))
        except asyncio.TimeoutError:
            raise PushwireError(StatusCode.DEADLINE_EXCEEDED, f"{method}: no free call slot before the deadline",
                                local=True) from None
        try:
            if self._closed is not None:
                raise self._closed
            if self._go_away_last is not None:
                raise PushwireError(StatusCode.UNAVAILABLE, "server is going away", local=True)
            call_id = next(self._ids)
            if call_id > 0xFFFFFFFF:
                raise PushwireError(StatusCode.UNAVAILABLE, "call ids exhausted; open a new connection", local=True)
            frame.call_id = call_id
            future: asyncio.Future = asyncio.get_running_loop().create_future()
            self._pending[call_id] = future
            self._write(frame)
            await self._writer.drain()
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                response = await asyncio.wait_for(asyncio.shield(future), left)
            except asyncio.TimeoutError:
                self._cancel(call_id)
                raise PushwireError(StatusCode.DEADLINE_EXCEEDED, f"no answer to {method} before the deadline",
                                    local=True) from None
            except asyncio.CancelledError:
                self._cancel(call_id)
                raise
            return decode_response(response, response_type)
        finally:
            self._slots.release()

    def _cancel(self, call_id: int) -> None:
        if self._pending.pop(call_id, None) is not None and self._closed is None:
            frame = rpc_pb2.Frame(call_id=call_id)
            frame.cancel.SetInParent()
            try:
                self._write(frame)
            except (OSError, RuntimeError):
                pass

    async def call(self, method: str, request: Message, response_type: type[Message] | None = None, *,
                   timeout: float | None = None, metadata: Any = None) -> Message:
        """A call by path; the response type defaults to the method's."""
        if response_type is None:
            if method not in METHODS:
                raise ValueError(f"unknown method {method}: pass response_type")
            response_type = METHODS[method].response_type
        return await self._invoke(method, request, response_type, timeout=timeout, metadata=metadata)

    async def ping(self, timeout: float | None = None) -> float:
        """Sends a Ping and waits for its Pong; returns the round trip in seconds."""
        if self._closed is not None:
            raise self._closed
        payload = int.from_bytes(os.urandom(8), "big")
        future: asyncio.Future = asyncio.get_running_loop().create_future()
        self._pings[payload] = future
        frame = rpc_pb2.Frame()
        frame.ping.payload = payload
        started = time.monotonic()
        self._write(frame)
        try:
            await asyncio.wait_for(future, self.timeout if timeout is None else timeout)
        except asyncio.TimeoutError:
            raise PushwireError(StatusCode.DEADLINE_EXCEEDED, "no pong", local=True) from None
        finally:
            self._pings.pop(payload, None)
        return time.monotonic() - started

    @property
    def in_flight(self) -> int:
        """Calls sent and not yet answered."""
        return len(self._pending)

    def _fail_all(self, error: PushwireError) -> None:
        if self._closed is None:
            self._closed = error
        pending, self._pending = self._pending, {}
        for future in list(pending.values()) + list(self._pings.values()):
            if not future.done():
                future.set_exception(error)
        self._pings = {}

    async def _read_loop(self) -> None:
        error = PushwireError(StatusCode.UNAVAILABLE, "server closed the connection", local=True)
        try:
            while True:
                frame = self._decoder.next_frame()
                if frame is None:
                    data = await self._reader.read(65536)
                    if not data:
                        break
                    self._decoder.append(data)
                    continue
                self._dispatch(frame)
        except ProtocolError as exc:
            error = exc
        except OSError as exc:
            error = PushwireError(StatusCode.UNAVAILABLE, f"connection lost: {exc}", local=True)
        self._fail_all(error)

    def _dispatch(self, frame: rpc_pb2.Frame) -> None:
        kind = frame.WhichOneof("kind")
        if kind == "response":
            if frame.response.HasField("status"):  # status-less items belong to streams; none in v1
                future = self._pending.pop(frame.call_id, None)
                if future is not None and not future.done():
                    future.set_result(frame.response)
        elif kind == "ping":
            pong = rpc_pb2.Frame()
            pong.pong.payload = frame.ping.payload
            self._write(pong)
        elif kind == "pong":
            future = self._pings.get(frame.pong.payload)
            if future is not None and not future.done():
                future.set_result(None)
        elif kind == "go_away":
            self._go_away_last = last = frame.go_away.last_call_id
            error = PushwireError(StatusCode.UNAVAILABLE, "server is going away; call not processed, "
                                  "safe to retry", local=True)
            for call_id in [i for i in self._pending if i > last]:
                future = self._pending.pop(call_id)
                if not future.done():
                    future.set_exception(error)
        elif kind != "settings":
            raise ProtocolError(f"unexpected {kind} frame from the server")
