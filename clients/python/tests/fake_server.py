"""A scripted one-connection server for client tests: the test gives a function that plays the
server's side of the conversation on a FakeConnection."""
from __future__ import annotations

import socket
import threading
import traceback
from typing import Callable

from google.protobuf.message import Message

from pushwire.framing import PREFACE, FrameDecoder, encode_frame
from pushwire.v1 import rpc_pb2


class FakeConnection:
    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.decoder = FrameDecoder(expects_preface=True)

    def read_frame(self) -> rpc_pb2.Frame:
        while True:
            frame = self.decoder.next_frame()
            if frame is not None:
                return frame
            data = self.sock.recv(65536)
            if not data:
                raise EOFError("client closed")
            self.decoder.append(data)

    def send(self, frame: rpc_pb2.Frame) -> None:
        self.sock.sendall(encode_frame(frame))

    def answer(self, call_id: int, code: int = 0, message: str = "", body: Message | None = None) -> None:
        frame = rpc_pb2.Frame(call_id=call_id)
        frame.response.status.code = code
        frame.response.status.message = message
        if body is not None:
            frame.response.message = body.SerializeToString()
        self.send(frame)


class FakeServer:
    """Listens on 127.0.0.1:0; the first connection gets the preface, the given Settings and then
    ``script(conn)``. Failures inside the script are kept in ``errors`` for the test to assert."""

    def __init__(self, script: Callable[[FakeConnection], None], *, max_frame_size: int = 4 << 20,
                 max_concurrent_calls: int = 16, preface: bytes = PREFACE):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.errors: list[str] = []
        self._script = script
        self._max_frame_size = max_frame_size
        self._max_concurrent_calls = max_concurrent_calls
        self._preface = preface
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        self.listener.settimeout(10)
        try:
            sock, _ = self.listener.accept()
        except OSError as exc:
            self.errors.append(f"accept: {exc}")
            return
        sock.settimeout(10)
        with sock:
            conn = FakeConnection(sock)
            try:
                conn.sock.sendall(self._preface)
                if self._preface == PREFACE:
                    settings = rpc_pb2.Frame()
                    settings.settings.max_frame_size = self._max_frame_size
                    settings.settings.max_concurrent_calls = self._max_concurrent_calls
                    settings.settings.server_name = "fake"
                    settings.settings.protocol_version = 1
                    conn.send(settings)
                    self._script(conn)
                else:
                    conn.sock.recv(64)
            except EOFError:
                pass  # the client hung up: the normal end of a script
            except Exception:  # reported to the test, which asserts on self.errors
                self.errors.append(traceback.format_exc())

    def join(self) -> list[str]:
        self._thread.join(timeout=10)
        self.listener.close()
        return self.errors
