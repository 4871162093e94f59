"""A thread-safe Pushwire client: one TCP connection, many calls in flight, answers matched to
their calls by id on a reader thread."""
from __future__ import annotations

import itertools
import math
import os
import socket
import ssl
import threading
import time
from typing import Any, Iterable

from google.protobuf.message import DecodeError, Message

from pushwire.framing import DEFAULT_MAX_FRAME_SIZE, PREFACE, FrameDecoder, encode_frame
from pushwire.services import METHODS, attach_services
from pushwire.status import ProtocolError, PushwireError, StatusCode
from pushwire.tls import TLSStream, resolve_context
from pushwire.v1 import rpc_pb2


def metadata_pairs(metadata: Any) -> list[tuple[str, str]]:
    if metadata is None:
        return []
    items: Iterable[tuple[str, str]] = metadata.items() if hasattr(metadata, "items") else metadata
    return [(str(k).lower(), str(v)) for k, v in items]


def call_metadata(defaults: list[tuple[str, str]], metadata: Any) -> list[tuple[str, str]]:
    """A call's metadata: the client's defaults, except those whose key the call's own entries set.

    The server refuses a call carrying two ``authorization`` entries (docs/PROTOCOL.md), so a
    per-call token replaces the client's instead of being sent beside it.
    """
    own = metadata_pairs(metadata)
    keys = {key for key, _ in own}
    return [entry for entry in defaults if entry[0] not in keys] + own


def decode_response(response: rpc_pb2.Response, response_type: type[Message]) -> Message:
    """The message of an OK response; PushwireError with the status otherwise."""
    code = StatusCode.from_wire(response.status.code)
    if code != StatusCode.OK:
        raise PushwireError(code, response.status.message)
    message = response_type()
    try:
        message.ParseFromString(response.message)
    except DecodeError as exc:
        raise PushwireError(StatusCode.INTERNAL, f"response is not a {response_type.__name__}: {exc}",
                            local=True) from exc
    return message


def request_frame(method: str, request: Message, timeout: float | None,
                  metadata: list[tuple[str, str]]) -> rpc_pb2.Frame:
    """A Request frame without its call id; ``timeout`` (seconds) becomes ``timeout_ms``."""
    frame = rpc_pb2.Frame()
    req = frame.request
    req.method = method
    req.timeout_ms = min(math.ceil(timeout * 1000), 2**32 - 1) if timeout and timeout > 0 else 0
    for key, value in metadata:
        req.metadata.add(key=key, value=value)
    req.message = request.SerializeToString()
    return frame


class Call:
    """One call in flight. ``result()`` waits for its answer; ``cancel()`` abandons it."""

    def __init__(self, client: "Client", call_id: int, method: str, response_type: type[Message],
                 deadline: float | None):
        self.call_id = call_id
        self.method = method
        self._client = client
        self._response_type = response_type
        self._deadline = deadline
        self._done = threading.Event()
        self._finish_lock = threading.Lock()
        self._response: Message | None = None
        self._error: PushwireError | None = None

    def _finish(self, response: rpc_pb2.Response | None = None, error: PushwireError | None = None) -> None:
        with self._finish_lock:  # the reader thread and a cancelling caller may race here
            if self._done.is_set():
                return
            self._client._slots.release()
            self._complete(response, error)

    def _complete(self, response: rpc_pb2.Response | None, error: PushwireError | None) -> None:
        if error is None and response is not None:
            try:
                self._response = decode_response(response, self._response_type)
            except PushwireError as exc:
                error = exc
        self._error = error
        self._done.set()

    def done(self) -> bool:
        """Whether the answer (or a failure) is in."""
        return self._done.is_set()

    def result(self, timeout: float | None = None) -> Message:
        """The response message; raises PushwireError for any status other than OK.

        Waits until the call's deadline (or ``timeout`` seconds, whichever is sooner). When the
        deadline passes first, the call is cancelled on the server and DEADLINE_EXCEEDED raised.
        """
        limits = [t for t in (timeout, None if self._deadline is None else self._deadline - time.monotonic())
                  if t is not None]
        wait = max(0.0, min(limits)) if limits else None
        if not self._done.wait(wait):
            if self._deadline is not None and time.monotonic() >= self._deadline:
                self._client._abandon(self, PushwireError(
                    StatusCode.DEADLINE_EXCEEDED, f"no answer to {self.method} before the deadline", local=True))
            else:
                raise TimeoutError(f"{self.method} still in flight after {timeout} s")
        if self._error is not None:
            raise self._error
        assert self._response is not None
        return self._response

    def cancel(self) -> None:
        """Abandons the call: sends Cancel; ``result()`` then raises CANCELLED."""
        self._client._abandon(self, PushwireError(StatusCode.CANCELLED, "cancelled by the caller", local=True))


class Client:
    """A connection to a Pushwire server.

    ``Client(host, port, timeout=10.0, token=None, metadata=None)`` connects, exchanges the
    preface and reads the server's Settings (``client.settings``). ``timeout`` bounds the
    connection set-up and is the default deadline of every call. ``token`` adds
    ``authorization: Bearer <token>`` to every call; ``metadata`` adds entries to every call
    (a call's own ``metadata=`` replaces those of the keys it sets).

    TLS: ``tls=True`` (or ``ca_file=``) verifies the server against ``ca_file`` (the system store
    when None) and the name ``server_name`` (default ``host``), offering ALPN ``pwire/1``;
    ``client_cert=``/``client_key=`` present a client certificate; ``tls=`` may also be a ready
    ``ssl.SSLContext`` (see :func:`pushwire.tls.make_context`). A failed verification raises
    UNAVAILABLE saying why; nothing is sent before the server is verified.

    Each service is an attribute with a method per RPC: ``client.health.check()``,
    ``client.devices.register_device(request, timeout=2.0, metadata={...})``. Methods may be
    called from many threads at once; calls share the connection and are answered in completion
    order. Use ``.future(...)`` to keep several calls in flight from one thread.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 7355, *, timeout: float = 10.0,
                 token: str | None = None, metadata: Any = None,
                 max_frame_size: int = DEFAULT_MAX_FRAME_SIZE,
                 tls: "ssl.SSLContext | bool | None" = None, ca_file: str | None = None,
                 server_name: str | None = None, client_cert: str | None = None,
                 client_key: str | None = None):
        self.timeout = timeout
        self._default_metadata = metadata_pairs(metadata)
        if token:
            self._default_metadata.append(("authorization", f"Bearer {token}"))
        # Two locks, so that the reader thread never waits behind a blocked write: a client that
        # stops reading while it writes could otherwise deadlock with a server that stops reading
        # from a client that does not read its responses (PROTOCOL.md, "Output backpressure").
        self._lock = threading.Lock()          # guards the fields below; never held across I/O
        self._write_lock = threading.Lock()    # serializes socket writes; taken before _lock
        self._pending: dict[int, Call] = {}
        self._pings: dict[int, threading.Event] = {}
        self._ids = itertools.count(1)
        self._closed: PushwireError | None = None
        self._go_away_last: int | None = None
        self._decoder = FrameDecoder(max_frame_size, expects_preface=True)
        try:
            self._sock = socket.create_connection((host, port), timeout=timeout)
        except OSError as exc:
            raise PushwireError(StatusCode.UNAVAILABLE, f"cannot connect to {host}:{port}: {exc}",
                                local=True) from exc
        try:
            self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            context = resolve_context(tls, ca_file, client_cert, client_key)
            if context is not None:
                self._sock = TLSStream(self._sock, context, server_name or host, timeout, host, port)
            self._sock.sendall(PREFACE)
            first = self._read_frame_blocking(time.monotonic() + timeout)
            if first.WhichOneof("kind") != "settings":
                raise ProtocolError(f"expected settings after the preface, got {first.WhichOneof('kind')}")
        except OSError as exc:  # ssl.SSLError too: a TLS alert, e.g. a client certificate required
            self._sock.close()
            raise PushwireError(StatusCode.UNAVAILABLE, f"{host}:{port} closed the connection before its "
                                f"settings: {exc}", local=True) from exc
        except BaseException:
            self._sock.close()
            raise
        self.settings: rpc_pb2.Settings = first.settings
        self._max_send = first.settings.max_frame_size or DEFAULT_MAX_FRAME_SIZE
        # Calls beyond the server's limit wait here for a free slot instead of failing
        # RESOURCE_EXHAUSTED on the server (PROTOCOL.md, "Concurrent calls").
        self._slots = threading.BoundedSemaphore(first.settings.max_concurrent_calls or 2**31)
        self._go_away_status: rpc_pb2.Status | None = None
        self._sock.settimeout(None)
        self._reader = threading.Thread(target=self._read_loop, name="pushwire-reader", daemon=True)
        self._reader.start()
        for name, stub in attach_services(self).items():
            setattr(self, name, stub)

    # ---- set-up and teardown ----

    def _read_frame_blocking(self, deadline: float) -> rpc_pb2.Frame:
        while True:
            frame = self._decoder.next_frame()
            if frame is not None:
                return frame
            left = deadline - time.monotonic()
            if left <= 0:
                raise PushwireError(StatusCode.DEADLINE_EXCEEDED, "no settings from the server", local=True)
            self._sock.settimeout(left)
            try:
                data = self._sock.recv(65536)
            except socket.timeout:
                continue
            if not data:
                raise PushwireError(StatusCode.UNAVAILABLE, "server closed the connection", local=True)
            self._decoder.append(data)

    def close(self) -> None:
        """Closes the connection; calls still in flight fail with UNAVAILABLE."""
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._sock.close()
        if self._reader is not threading.current_thread():
            self._reader.join(timeout=5)
        self._fail_all(PushwireError(StatusCode.UNAVAILABLE, "connection closed", local=True))

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ---- calls ----

    def _send(self, frame: rpc_pb2.Frame) -> None:
        data = encode_frame(frame, self._max_send)
        with self._write_lock:
            self._sock.sendall(data)

    def start_call(self, method: str, request: Message, response_type: type[Message], *,
                   timeout: float | None = None, metadata: Any = None) -> Call:
        """Sends a call and returns its :class:`Call` without waiting.

        ``timeout`` defaults to the client's; 0 or a negative value means no deadline (the
        server's default applies).
        """
        timeout = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout if timeout and timeout > 0 else None
        frame = request_frame(method, request, timeout if deadline else None,
                              call_metadata(self._default_metadata, metadata))
        wait = None if deadline is None else max(0.0, deadline - time.monotonic())
        if not self._slots.acquire(timeout=wait):
            raise PushwireError(StatusCode.DEADLINE_EXCEEDED,
                                f"{method}: no free call slot before the deadline "
                                f"({self.settings.max_concurrent_calls} calls in flight)", local=True)
        call: Call | None = None
        try:
            # Ids are taken under the write lock so that they go out in increasing order.
            with self._write_lock:
                with self._lock:
                    if self._closed is not None:
                        raise self._closed
                    if self._go_away_last is not None:
                        raise PushwireError(StatusCode.UNAVAILABLE, "server is going away", local=True)
                    call_id = next(self._ids)
                    if call_id > 0xFFFFFFFF:  # ids are never reused on a connection
                        raise PushwireError(StatusCode.UNAVAILABLE,
                                            "call ids exhausted; open a new connection", local=True)
                    frame.call_id = call_id
                    data = encode_frame(frame, self._max_send)  # FrameTooLarge before anything is sent
                    call = Call(self, call_id, method, response_type, deadline)
                    self._pending[call_id] = call
                try:
                    self._sock.sendall(data)
                except OSError as exc:
                    with self._lock:
                        dropped = self._pending.pop(call_id, None) is call
                    if dropped:
                        call._finish(error=PushwireError(StatusCode.UNAVAILABLE, f"send failed: {exc}",
                                                         local=True))
                    raise call._error or PushwireError(StatusCode.UNAVAILABLE, f"send failed: {exc}",
                                                       local=True) from exc
                return call
        except BaseException:
            # Before the call exists (or when its send failed and _finish already released it)
            # the slot is ours to give back exactly once.
            if call is None or not call.done():
                self._slots.release()
            raise

    def _invoke(self, method: str, request: Message, response_type: type[Message], *,
                timeout: float | None, metadata: Any) -> Message:
        return self.start_call(method, request, response_type, timeout=timeout, metadata=metadata).result()

    def call(self, method: str, request: Message, response_type: type[Message] | None = None, *,
             timeout: float | None = None, metadata: Any = None) -> Message:
        """A blocking call by path; the response type defaults to the method's."""
        if response_type is None:
            info = METHODS.get(method)
            if info is None:
                raise ValueError(f"unknown method {method}: pass response_type")
            response_type = info.response_type
        return self.start_call(method, request, response_type, timeout=timeout, metadata=metadata).result()

    def _send_quietly(self, frame: rpc_pb2.Frame) -> None:
        try:
            self._send(frame)
        except OSError:
            pass  # the connection is going down; the reader reports it

    def _abandon(self, call: Call, error: PushwireError) -> None:
        with self._lock:
            was_pending = self._pending.pop(call.call_id, None) is call
        call._finish(error=error)
        if was_pending:
            frame = rpc_pb2.Frame(call_id=call.call_id)
            frame.cancel.SetInParent()
            try:
                self._send(frame)
            except OSError:
                pass

    def ping(self, timeout: float | None = None) -> float:
        """Sends a Ping and waits for its Pong; returns the round trip in seconds."""
        payload = int.from_bytes(os.urandom(8), "big")
        event = threading.Event()
        with self._lock:
            if self._closed is not None:
                raise self._closed
            self._pings[payload] = event
        frame = rpc_pb2.Frame()
        frame.ping.payload = payload
        started = time.monotonic()
        self._send(frame)
        ok = event.wait(self.timeout if timeout is None else timeout)
        with self._lock:
            self._pings.pop(payload, None)
        if not ok:
            raise PushwireError(StatusCode.DEADLINE_EXCEEDED, "no pong", local=True)
        if self._closed is not None:
            raise self._closed
        return time.monotonic() - started

    @property
    def in_flight(self) -> int:
        """Calls sent and not yet answered."""
        with self._lock:
            return len(self._pending)

    # ---- the reader thread ----

    def _fail_all(self, error: PushwireError) -> None:
        with self._lock:
            if self._closed is None:
                self._closed = error
            pending, self._pending = self._pending, {}
            pings, self._pings = list(self._pings.values()), {}
        for call in pending.values():
            call._finish(error=error)
        for event in pings:
            event.set()

    def _read_loop(self) -> None:
        error = PushwireError(StatusCode.UNAVAILABLE, "server closed the connection", local=True)
        try:
            while True:
                frame = self._decoder.next_frame()
                if frame is None:
                    data = self._sock.recv(65536)
                    if not data:
                        break
                    self._decoder.append(data)
                    continue
                self._dispatch(frame)
        except ProtocolError as exc:
            error = exc
        except OSError as exc:
            error = PushwireError(StatusCode.UNAVAILABLE, f"connection lost: {exc}", local=True)
        status = self._go_away_status
        if status is not None and status.code != 0:
            # A protocol-violation GoAway says why the server is closing: report that.
            error = PushwireError(StatusCode.UNAVAILABLE,
                                  f"server closed the connection after GoAway "
                                  f"{StatusCode.from_wire(status.code).name}: {status.message}", local=True)
        self._fail_all(error)

    def _dispatch(self, frame: rpc_pb2.Frame) -> None:
        kind = frame.WhichOneof("kind")
        if kind == "response":
            if not frame.response.HasField("status"):
                return  # a streamed item; every v1 method is unary
            with self._lock:
                call = self._pending.pop(frame.call_id, None)
            if call is not None:
                call._finish(frame.response)
        elif kind == "ping":
            pong = rpc_pb2.Frame()
            pong.pong.payload = frame.ping.payload
            # Off the reader thread: it must never wait for the write lock (see __init__).
            threading.Thread(target=self._send_quietly, args=(pong,), daemon=True).start()
        elif kind == "pong":
            with self._lock:
                event = self._pings.get(frame.pong.payload)
            if event is not None:
                event.set()
        elif kind == "go_away":
            last = frame.go_away.last_call_id
            error = PushwireError(StatusCode.UNAVAILABLE,
                                  f"server is going away ({frame.go_away.status.message or 'shutdown'}); "
                                  "call not processed, safe to retry", local=True)
            with self._lock:
                self._go_away_last = last
                self._go_away_status = frame.go_away.status
                doomed = [c for i, c in self._pending.items() if i > last]
                for call in doomed:
                    del self._pending[call.call_id]
            for call in doomed:
                call._finish(error=error)
        elif kind == "settings":
            pass
        else:
            raise ProtocolError(f"unexpected {kind} frame from the server")
