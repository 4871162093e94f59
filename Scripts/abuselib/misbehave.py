"""The misbehaving connections (one process, one selector), their kinds and the mix of them."""

import collections
import resource
import selectors
import socket
import struct
import time

from .wire import PREFACE, cancel_frame, f_bytes, f_varint, frames_in, request_frame, response_of, varint


KINDS = ["never-read", "cancel-loop", "oversized", "partial", "slow-loris", "heavy", "idle"]
DEFAULT_MIX = {"never-read": 150, "cancel-loop": 150, "oversized": 100, "partial": 100,
               "slow-loris": 150, "heavy": 50, "idle": 300}



class Misbehaver:
    def __init__(self, kind, address, ctx):
        self.kind, self.address, self.ctx = kind, address, ctx
        self.sock = None
        self.out = collections.deque()  # memoryviews still to send, oldest first
        self.inbuf = bytearray()
        self.next_id = 1
        self.next_action = 0.0
        self.sent_calls = self.answers = self.reconnects = 0
        self.pending = 0

    def connect(self, selector, now):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if self.kind == "never-read":
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 * 1024)
        sock.setblocking(False)
        try:
            sock.connect(self.address)
        except BlockingIOError:
            pass
        self.sock = sock
        self.out = collections.deque([memoryview(PREFACE)])
        self.inbuf = bytearray()
        self.skip = 8  # the server's preface
        self.pending = 0
        self.started = False
        self.next_action = now
        selector.register(sock, selectors.EVENT_READ | selectors.EVENT_WRITE, self)

    def close(self, selector, now, reconnect_after):
        try:
            selector.unregister(self.sock)
        except (KeyError, ValueError):
            pass
        self.sock.close()
        self.sock = None
        self.next_action = now + reconnect_after

    def queued_bytes(self):
        return sum(len(chunk) for chunk in self.out)

    def act(self, now):
        """Queues what the connection sends now; returns when it wants to act again."""
        ctx = self.ctx
        kind = self.kind
        if kind == "never-read":
            if not self.started:
                self.out.append(memoryview(b"".join(
                    request_frame(self.next_id + i, "/pushwire.v1.Devices/GetTags", ctx["get_tags_message"]) for i in range(200))))
                self.next_id += 200
                self.sent_calls += 200
                self.started = True
            return now + 3600
        if kind == "cancel-loop":
            if self.queued_bytes() < 64 * 1024:
                batch = bytearray()
                for _ in range(20):
                    batch += request_frame(self.next_id, "/pushwire.v1.Devices/GetTags", ctx["get_tags_message"])
                    batch += cancel_frame(self.next_id)
                    self.next_id += 1
                self.out.append(memoryview(bytes(batch)))
                self.sent_calls += 20
            return now + 0.1
        if kind == "oversized":
            if not self.started:
                self.out.append(memoryview(struct.pack(">I", 64 * 1024 * 1024) + b"\x08\x01"))
                self.started = True
            return now + 3600
        if kind == "partial":
            if not self.started:
                self.out.append(memoryview(struct.pack(">I", 4_000_000) + b"\x08\x01\x12"))
                self.out.append(ctx["partial_body"])
                self.started = True
            return now + 3600
        if kind == "slow-loris":
            if not self.started:
                self.drip = request_frame(1, "/pushwire.v1.Health/Check")
                self.started = True
            if self.drip:
                self.out.append(memoryview(self.drip[:1]))
                self.drip = self.drip[1:]
            return now + 1.0
        if kind == "heavy":
            request = ctx["heavy_request"]
            if request is not None and self.pending == 0 and not self.out:
                # 20 pipelined; each frame is a small header of its own and the one shared request.
                for _ in range(20):
                    head = f_varint(1, self.next_id) + varint(2 << 3 | 2) + varint(len(request))
                    self.out.append(memoryview(struct.pack(">I", len(head) + len(request)) + head))
                    self.out.append(request)
                    self.next_id += 1
                self.pending = 20
                self.sent_calls += 20
            return now + 0.05
        return now + 3600  # idle

    def readable(self, selector, now):
        if self.kind == "never-read":
            return
        try:
            chunk = self.sock.recv(1 << 20)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            chunk = b""
        if not chunk:
            # Closed by the server (GoAway, frame timeout): come back as the same kind.
            self.reconnects += 1
            self.close(selector, now, 0.2 if self.kind == "oversized" else 0.5)
            return
        if self.skip:
            dropped = min(self.skip, len(chunk))
            chunk = chunk[dropped:]
            self.skip -= dropped
        if self.kind in ("cancel-loop", "heavy"):
            self.inbuf += chunk
            for payload in frames_in(self.inbuf):
                if response_of(payload):
                    self.answers += 1
                    if self.kind == "heavy":
                        self.pending = max(0, self.pending - 1)

    def writable(self):
        while self.out:
            chunk = self.out[0]
            try:
                sent = self.sock.send(chunk[:1 << 20])
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                self.out.clear()
                return
            if sent < len(chunk):
                self.out[0] = chunk[sent:]
                return
            self.out.popleft()


def drive(address, ctx, mix, stop, ready, results):
    """The misbehaving connections' process: runs until `stop` is set."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 65536)), hard))
    ctx = dict(ctx)
    ctx["partial_body"] = memoryview(b"\x00" * 3_000_000)
    if ctx["heavy"] is not None:
        metadata = f_bytes(3, f_bytes(1, "authorization") + f_bytes(2, f"Bearer {ctx['token']}"))
        ctx["heavy_request"] = memoryview(f_bytes(1, "/pushwire.v1.Messages/CreateMessage") + metadata + f_bytes(4, ctx["heavy"]))
    else:
        ctx["heavy_request"] = None
    selector = selectors.DefaultSelector()
    connections = []
    now = time.time()
    for kind, count in mix.items():
        for _ in range(count):
            connection = Misbehaver(kind, address, ctx)
            connection.connect(selector, now)
            connections.append(connection)
    ready.set()
    while not stop.is_set():
        now = time.time()
        wake = now + 0.05
        for connection in connections:
            if connection.sock is None:
                if now >= connection.next_action:
                    connection.connect(selector, now)
                continue
            if now >= connection.next_action:
                connection.next_action = connection.act(now)
            wake = min(wake, connection.next_action)
            events = selectors.EVENT_READ | (selectors.EVENT_WRITE if connection.out else 0)
            try:
                selector.modify(connection.sock, events, connection)
            except (KeyError, ValueError):
                pass
        for key, events in selector.select(timeout=max(0.0, wake - time.time())):
            connection = key.data
            if connection.sock is None:
                continue
            if events & selectors.EVENT_WRITE:
                connection.writable()
            if events & selectors.EVENT_READ and connection.sock is not None:
                connection.readable(selector, time.time())
    summary = {}
    for connection in connections:
        entry = summary.setdefault(connection.kind, {"connections": 0, "calls_sent": 0, "answers": 0, "closed_by_server": 0})
        entry["connections"] += 1
        entry["calls_sent"] += connection.sent_calls
        entry["answers"] += connection.answers
        entry["closed_by_server"] += connection.reconnects
    results.put(summary)


def parse_mix(text):
    if text == "default":
        return dict(DEFAULT_MIX)
    if text == "even":
        share, rest = divmod(1000, len(KINDS))
        return {kind: share + (1 if i < rest else 0) for i, kind in enumerate(KINDS)}
    mix = {}
    for part in text.split(","):
        kind, _, count = part.partition("=")
        if kind not in KINDS or not count.isdigit():
            raise SystemExit(f"abuse: --mix: '{part}' is not KIND=N with KIND one of {', '.join(KINDS)}")
        mix[kind] = int(count)
    return mix
