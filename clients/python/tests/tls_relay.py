"""A TLS front in front of a clear-text pushwired, kept for the one case pushwired's own TLS
cannot play: a server that takes no part in ALPN (``alpn=[]``), which clients must accept
(docs/PROTOCOL.md, TLS). It accepts TLS on 127.0.0.1 (the test CA's certificate, TLS 1.2 or
later) and relays the decrypted bytes to the real server, one thread per connection. Every other
TLS test runs against pushwired --tls-cert (conftest.start_tls_server)."""
from __future__ import annotations

import select
import socket
import ssl
import threading


class TLSRelay:
    def __init__(self, cert: str, key: str, upstream: tuple[str, int], alpn: list[str] | None = None):
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.minimum_version = ssl.TLSVersion.TLSv1_2
        self.context.load_cert_chain(cert, key)
        self.context.set_alpn_protocols(["pwire/1"] if alpn is None else alpn)
        self.upstream = upstream
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.host, self.port = self._listener.getsockname()[:2]
        self._stopped = False
        self._threads: list[threading.Thread] = []
        self._accepting = threading.Thread(target=self._accept_loop, daemon=True)
        self._accepting.start()

    def _accept_loop(self) -> None:
        while not self._stopped:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            thread = threading.Thread(target=self._relay, args=(conn,), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _relay(self, conn: socket.socket) -> None:
        conn.settimeout(60)  # the C client's handshake under valgrind takes seconds
        try:
            tls = self.context.wrap_socket(conn, server_side=True)
        except (OSError, ssl.SSLError):
            conn.close()
            return
        try:
            up = socket.create_connection(self.upstream, timeout=10)
        except OSError:
            tls.close()
            return
        try:
            self._pump(tls, up)
        except (OSError, ssl.SSLError):
            pass
        finally:
            tls.close()
            up.close()

    def _pump(self, tls: ssl.SSLSocket, up: socket.socket) -> None:
        # One thread uses the TLS socket, so it is never read and written at once.
        tls.settimeout(0)
        up.settimeout(10)
        while not self._stopped:
            if not tls.pending():
                readable, _, _ = select.select([tls, up], [], [], 0.5)
            else:
                readable = [tls]
            if tls in readable or tls.pending():
                try:
                    data = tls.recv(65536)
                except ssl.SSLWantReadError:
                    data = None
                if data == b"":
                    return
                if data:
                    up.sendall(data)
            if up in readable:
                data = up.recv(65536)
                if not data:
                    return
                tls.settimeout(10)
                tls.sendall(data)
                tls.settimeout(0)

    def stop(self) -> None:
        self._stopped = True
        self._listener.close()
        for thread in self._threads:
            thread.join(timeout=2)
