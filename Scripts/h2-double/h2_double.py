"""HTTP/2-over-TLS server plumbing shared by Pushwire's push-service doubles
(Scripts/apns-double/apns_double.py and Scripts/fcm-double/fcm_double.py).

A double supplies the answers; this module supplies what both do the same way: the asyncio
protocol that feeds bytes to `h2`, collects each request's headers and body, tracks open and peak
streams, holds a request back --delay-ms when asked, and hands a finished request to the double's
`respond`; the --rule parser; and `serve`, which listens, prints "PORT <n>", and on SIGTERM or
SIGINT closes every connection (flushing answers already written; a GOAWAY tells the client which
requests were not acted on) and the log.
"""
import asyncio
import base64
import fcntl
import signal
import ssl
import struct
import termios

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.settings


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def parse_rules(rules, key=lambda token: token):
    """--rule TOKEN=STATUS:REASON[:RETRY_AFTER[:TIMES]] → {key(TOKEN): [status, reason, retry_after, times]}.

    retry_after is None when empty or absent; times is None (always) when absent.
    """
    parsed = {}
    for rule in rules or []:
        token, _, answer = rule.partition("=")
        parts = answer.split(":")
        parsed[key(token)] = [int(parts[0]), parts[1] if len(parts) > 1 else "",
                              parts[2] if len(parts) > 2 and parts[2] else None,
                              int(parts[3]) if len(parts) > 3 else None]  # None: always
    return parsed


class DoubleState:
    """What the plumbing keeps on the double: its log, its connections and stream counts."""

    def __init__(self, args):
        self.args = args
        self.log = open(args.log, "a", buffering=1) if args.log else None
        self.connections = set()
        self.connection_counter = 0
        self.open_streams = 0
        self.peak_open_streams = 0


class Connection(asyncio.Protocol):
    """One client connection. Subclasses implement `respond(stream_id)` (pop the request from
    `self.streams`, answer it, decrement `double.open_streams`) and may override `delay_seconds(stream_id)`."""

    def __init__(self, double):
        self.double = double
        self.h2 = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
        self.streams = {}  # stream id -> (headers dict, body bytearray)
        self.closing = False

    def connection_made(self, transport):
        self.transport = transport
        self.double.connection_counter += 1
        self.id = self.double.connection_counter
        self.double.connections.add(self)
        self.h2.local_settings = h2.settings.Settings(
            client=False, initial_values={h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: self.double.args.max_streams})
        self.h2.initiate_connection()
        self.transport.write(self.h2.data_to_send())

    def connection_lost(self, exc):
        self.double.connections.discard(self)
        self.double.open_streams -= len(self.streams)
        self.streams.clear()

    def delay_seconds(self, stream_id):
        """How long this finished request waits before it is answered (0: not at all): --delay-ms."""
        return self.double.args.delay_ms / 1000

    def data_received(self, data):
        if self.closing:
            return
        try:
            events = self.h2.receive_data(data)
        except Exception:
            self.transport.close()
            return
        for event in events:
            if self.closing:
                break
            if isinstance(event, h2.events.RequestReceived):
                self.streams[event.stream_id] = (dict(event.headers), bytearray())
                self.double.open_streams += 1
                self.double.peak_open_streams = max(self.double.peak_open_streams, self.double.open_streams)
            elif isinstance(event, h2.events.DataReceived):
                if event.stream_id in self.streams:
                    self.streams[event.stream_id][1].extend(event.data)
                self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded):
                delay = self.delay_seconds(event.stream_id)
                if delay > 0:
                    asyncio.get_running_loop().call_later(delay, self.respond, event.stream_id)
                else:
                    self.respond(event.stream_id)
            elif isinstance(event, h2.events.StreamReset):
                if self.streams.pop(event.stream_id, None) is not None:
                    self.double.open_streams -= 1
        if not self.closing:
            self.transport.write(self.h2.data_to_send())

    def respond(self, stream_id):
        raise NotImplementedError

    def close(self):
        """Flushes what was written (answers already given) and closes; nothing more is answered."""
        self.closing = True
        self.transport.close()

    def delivered(self):
        """Whether what this connection wrote has reached the client and closing it now loses
        nothing: closed already, or nothing waiting in the TLS layer or the kernel (every byte
        sent acknowledged by the client's TCP) and nothing unread from the client (a close with
        unread bytes is a reset, which may throw away what the client has not read yet)."""
        sock = self.transport.get_extra_info("socket")
        if self not in self.double.connections or sock is None or sock.fileno() < 0:
            return True
        def queued(request):
            return struct.unpack("i", fcntl.ioctl(sock.fileno(), request, b"\0" * 4))[0]
        try:
            return self.transport.get_write_buffer_size() == 0 and queued(termios.TIOCOUTQ) == 0 \
                and queued(termios.FIONREAD) == 0
        except OSError:
            return True

    def shut_down(self):
        """Closes as a server that stops does: a GOAWAY whose last stream id is below every request
        not answered (none of them was acted on, so a client may send them again), then `close`."""
        if self.closing:
            return
        waiting = list(self.streams)
        last = min(waiting) - 2 if waiting else self.h2.highest_inbound_stream_id
        try:
            self.h2.close_connection(error_code=h2.errors.ErrorCodes.NO_ERROR, last_stream_id=max(0, last))
            self.transport.write(self.h2.data_to_send())
        except Exception:
            pass
        self.close()


def add_server_arguments(parser):
    """The options every double takes for listening and logging."""
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)


async def serve(args, double, connection_class, alpn, on_listening=None):
    """Listens with TLS offering `alpn`, prints "PORT <n>", runs until SIGTERM/SIGINT, then closes."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args.cert, args.key)
    context.set_alpn_protocols(alpn)
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: connection_class(double), args.host, args.port, ssl=context,
                                      reuse_address=True, backlog=256)
    port = server.sockets[0].getsockname()[1]
    if on_listening:
        on_listening(port)
    print(f"PORT {port}", flush=True)
    stop = asyncio.Event()
    # A parent that spawns us from a thread with signals blocked (libdispatch workers do) passes
    # that mask on; unblock so SIGTERM reaches the handler.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_signal_handler(signal.SIGINT, stop.set)
    await stop.wait()
    server.close()
    for connection in list(double.connections):
        connection.shut_down()
    # Exit only once every connection's answers have reached its client: an answer logged as
    # given but lost with the process would be sent again by the client, a duplicate the double
    # itself caused (a fixed 0.1 s was not always enough on a loaded host). A connection is done
    # when its TLS shutdown has completed (connection_lost), or when it is `delivered` twice in a
    # row, 10 ms apart (an idle client that does not read the close, e.g. libcurl's pooled
    # connections). Bounded, for a client that stops reading.
    deadline = loop.time() + 5
    settled = set()
    while loop.time() < deadline:
        delivered = {connection for connection in list(double.connections) if connection.delivered()}
        if len(delivered & settled) == len(double.connections):
            break
        settled = delivered
        await asyncio.sleep(0.01)
    if double.log:
        double.log.close()
