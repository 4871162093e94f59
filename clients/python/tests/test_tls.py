"""The Python clients' TLS checks against the throw-away CA (conftest.tls_dir): a server that does
not prove its name to a trusted CA is refused before a byte of the protocol is sent, with a
message saying why; a client certificate is presented when asked."""
from __future__ import annotations

import asyncio
import ssl

import pytest

from pushwire import AsyncClient, Client, PushwireError, StatusCode
from pushwire.v1 import health_pb2
from tls_relay import TLSRelay


@pytest.fixture
def relay_with(tls_dir, clear_server):
    relays = []

    def start(name: str, alpn: list[str] | None = None) -> TLSRelay:
        relay = TLSRelay(str(tls_dir / f"{name}.pem"), str(tls_dir / f"{name}.key"),
                         (clear_server.host, clear_server.port), alpn=alpn)
        relays.append(relay)
        return relay

    yield start
    for relay in relays:
        relay.stop()


def refused(connect) -> PushwireError:
    with pytest.raises(PushwireError) as info:
        connect()
    assert info.value.code is StatusCode.UNAVAILABLE and info.value.local
    return info.value


@pytest.mark.parametrize("flavour", ["sync", "asyncio"])
def test_wrong_host_untrusted_ca_and_system_store_are_refused(tls_dir, relay_with, flavour):
    ca = str(tls_dir / "ca.pem")

    def connect(relay, **tls):
        if flavour == "sync":
            return lambda: Client(relay.host, relay.port, timeout=5, **tls).close()
        return lambda: asyncio.run(AsyncClient.connect(relay.host, relay.port, timeout=5, **tls))

    wrong_host = relay_with("wrong-host")
    error = refused(connect(wrong_host, ca_file=ca))
    assert "certificate verification failed" in error.message and "127.0.0.1" in error.message
    untrusted = relay_with("untrusted")
    error = refused(connect(untrusted, ca_file=ca))
    assert "certificate verification failed" in error.message and ("issuer" in error.message or "self-signed" in error.message)
    good = relay_with("server")
    error = refused(connect(good, tls=True))  # the system store does not know the test CA
    assert "certificate verification failed" in error.message
    # server_name is what is checked: localhost is in the certificate, another name is not.
    if flavour == "sync":
        with Client(good.host, good.port, timeout=5, ca_file=ca, server_name="localhost") as client:
            assert client.health.check().status == health_pb2.SERVING_STATUS_SERVING
            assert client._sock.version in ("TLSv1.3", "TLSv1.2")
            assert client._sock.selected_alpn_protocol() == "pwire/1"
    error = refused(connect(good, ca_file=ca, server_name="elsewhere.invalid"))
    assert "elsewhere.invalid" in error.message


def test_a_server_without_alpn_is_accepted(tls_dir, relay_with):
    relay = relay_with("server", alpn=[])
    with Client(relay.host, relay.port, timeout=5, ca_file=str(tls_dir / "ca.pem")) as client:
        assert client._sock.selected_alpn_protocol() is None
        assert client.health.check().status == health_pb2.SERVING_STATUS_SERVING


def test_client_certificate(tls_dir, relay_with):
    relay = relay_with("server")
    relay.context.verify_mode = ssl.CERT_REQUIRED
    relay.context.load_verify_locations(str(tls_dir / "ca.pem"))
    ca = str(tls_dir / "ca.pem")
    with Client(relay.host, relay.port, timeout=5, ca_file=ca, client_cert=str(tls_dir / "client.pem"),
                client_key=str(tls_dir / "client.key")) as client:
        assert client.health.check().status == health_pb2.SERVING_STATUS_SERVING
    # Without one the server ends the connection (in TLS 1.3 after the client's Finished): with an
    # alert "certificate required", or a reset when that overtakes it.
    with pytest.raises(PushwireError) as info:
        with Client(relay.host, relay.port, timeout=5, ca_file=ca) as client:
            client.health.check()
    assert info.value.code is StatusCode.UNAVAILABLE and "before its settings" in info.value.message


def test_many_threads_share_one_tls_connection(tls_server):
    """Reads on the reader thread and writes from callers never meet inside OpenSSL."""
    with Client(tls_server.host, tls_server.port, timeout=10, **tls_server.tls) as client:
        futures = [client.health.check.future() for _ in range(2000)]
        assert all(f.result().status == health_pb2.SERVING_STATUS_SERVING for f in futures)
        import threading
        failures = []

        def hammer():
            try:
                for _ in range(200):
                    client.health.check()
                    client.ping()
            except Exception as exc:  # noqa: BLE001 - reported below
                failures.append(exc)

        threads = [threading.Thread(target=hammer) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        assert failures == []
