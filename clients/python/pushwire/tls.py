"""TLS for the Pushwire clients: the context every client uses (``make_context``) and the
thread-safe TLS stream under the threaded :class:`pushwire.Client`.

A client verifies the server as docs/PROTOCOL.md ("TLS") says: the chain against the CA file (or
the system store), the name it dialled (or ``server_name``) against the certificate, TLS 1.2 at
least, ALPN ``pwire/1`` offered and, if the server selects a protocol, it must be that one.
"""
from __future__ import annotations

import socket
import ssl
import threading
import time

from pushwire.status import PushwireError, StatusCode

ALPN = "pwire/1"


def make_context(ca_file: str | None = None, client_cert: str | None = None,
                 client_key: str | None = None) -> ssl.SSLContext:
    """A client context: peer and host name verified against ``ca_file`` (PEM; the system store
    when None), TLS 1.2 or later, ALPN ``pwire/1``, and optionally a client certificate (PEM
    chain in ``client_cert``, its key in ``client_key`` or the same file)."""
    context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=ca_file)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.set_alpn_protocols([ALPN])
    if client_cert:
        context.load_cert_chain(client_cert, client_key)
    return context


def resolve_context(tls: "ssl.SSLContext | bool | None", ca_file: str | None,
                    client_cert: str | None, client_key: str | None) -> ssl.SSLContext | None:
    """The context a client's ``tls=``/``ca_file=`` arguments ask for; None for clear text."""
    if isinstance(tls, ssl.SSLContext):
        return tls
    if tls or ca_file or client_cert:
        return make_context(ca_file, client_cert, client_key)
    return None


def handshake_error(exc: BaseException, host: str, port: int) -> PushwireError:
    """UNAVAILABLE naming what failed: the certificate check, or the handshake."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        why = f"certificate verification failed: {exc.verify_message or exc.reason}"
    else:
        why = f"handshake failed: {exc}"
    return PushwireError(StatusCode.UNAVAILABLE, f"TLS with {host}:{port}: {why}", local=True)


def check_alpn(selected: str | None, host: str, port: int) -> None:
    """A server that selects a protocol must select ``pwire/1`` (None: it took no part in ALPN)."""
    if selected is not None and selected != ALPN:
        raise PushwireError(StatusCode.UNAVAILABLE,
                            f"TLS with {host}:{port}: the server selected ALPN {selected!r}, not {ALPN}",
                            local=True)


class TLSStream:
    """A TLS connection with the socket methods :class:`pushwire.Client` uses.

    OpenSSL forbids using one connection from two threads at once, and the client reads on its
    reader thread while callers write. So TLS runs in memory (``ssl.SSLObject`` over two
    ``MemoryBIO``s) under a short lock that is never held across socket I/O; the socket itself is
    read by the reader thread only and written under the client's write lock only.
    """

    def __init__(self, sock: socket.socket, context: ssl.SSLContext, server_name: str,
                 timeout: float, host: str, port: int):
        self._sock = sock
        self._incoming = ssl.MemoryBIO()
        self._outgoing = ssl.MemoryBIO()
        self._tls = context.wrap_bio(self._incoming, self._outgoing, server_hostname=server_name)
        self._lock = threading.Lock()
        self._send_lock = threading.Lock()  # socket writes go out whole, in the order sealed
        deadline = time.monotonic() + timeout
        try:
            self._handshake(deadline)
        except (ssl.SSLError, ssl.CertificateError) as exc:
            raise handshake_error(exc, host, port) from exc
        except socket.timeout as exc:
            raise PushwireError(StatusCode.DEADLINE_EXCEEDED, f"TLS with {host}:{port}: handshake timed out",
                                local=True) from exc
        check_alpn(self._tls.selected_alpn_protocol(), host, port)

    def _handshake(self, deadline: float) -> None:
        while True:
            try:
                self._tls.do_handshake()
                self._sock.sendall(self._outgoing.read())
                return
            except ssl.SSLWantReadError:
                pass
            self._sock.sendall(self._outgoing.read())
            left = deadline - time.monotonic()
            if left <= 0:
                raise socket.timeout()
            self._sock.settimeout(left)
            data = self._sock.recv(65536)
            if not data:
                raise ssl.SSLError("the server closed the connection during the handshake")
            self._incoming.write(data)

    @property
    def version(self) -> str | None:
        """The negotiated protocol version, e.g. ``TLSv1.3``."""
        return self._tls.version()

    def selected_alpn_protocol(self) -> str | None:
        return self._tls.selected_alpn_protocol()

    def recv(self, size: int) -> bytes:
        """Application bytes; b"" when the server closed. Called by one thread at a time."""
        while True:
            with self._lock:
                try:
                    data = self._tls.read(size)
                    pending = self._outgoing.pending
                except ssl.SSLWantReadError:
                    data, pending = None, self._outgoing.pending
                except ssl.SSLZeroReturnError:
                    return b""
            if pending:
                self._flush_if_free()
            if data is not None:
                return data
            raw = self._sock.recv(65536)
            if not raw:
                return b""
            with self._lock:
                self._incoming.write(raw)

    def _flush_if_free(self) -> None:
        # Records the reader's processing produced (a TLS 1.3 key update): sent now unless a
        # writer holds the socket, which then sends them before its own (never blocks the reader).
        if self._send_lock.acquire(blocking=False):
            try:
                with self._lock:
                    data = self._outgoing.read()
                if data:
                    self._sock.sendall(data)
            finally:
                self._send_lock.release()

    def sendall(self, data: bytes) -> None:
        with self._send_lock:
            with self._lock:
                self._tls.write(data)
                sealed = self._outgoing.read()
            self._sock.sendall(sealed)

    def settimeout(self, value: float | None) -> None:
        self._sock.settimeout(value)

    def setsockopt(self, *args) -> None:
        self._sock.setsockopt(*args)

    def shutdown(self, how: int) -> None:
        self._sock.shutdown(how)

    def close(self) -> None:
        self._sock.close()
