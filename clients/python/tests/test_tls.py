"""The Python clients' TLS checks against the throw-away CA (conftest.tls_dir): a server that does
not prove its name to a trusted CA is refused before a byte of the protocol is sent, with a
message saying why; a client certificate is presented when asked."""
from __future__ import annotations

import asyncio
import ssl

import pytest

from pushwire import AsyncClient, Client, PushwireError, StatusCode
from pushwire.v1 import health_pb2
from conftest import start_tls_server
from tls_relay import TLSRelay


@pytest.fixture(scope="module")
def server_with(tls_dir):
    """pushwired speaking TLS with the test CA's certificate ``name`` (one per name and module)."""
    servers: dict[str, object] = {}

    def start(name: str):
        if name not in servers:
            servers[name] = start_tls_server(tls_dir, name)
        return servers[name]

    yield start
    for running in servers.values():
        running.stop()


def refused(connect) -> PushwireError:
    with pytest.raises(PushwireError) as info:
        connect()
    assert info.value.code is StatusCode.UNAVAILABLE and info.value.local
    return info.value


@pytest.mark.parametrize("flavour", ["sync", "asyncio"])
def test_wrong_host_untrusted_ca_and_system_store_are_refused(tls_dir, server_with, flavour):
    ca = str(tls_dir / "ca.pem")

    def connect(relay, **tls):
        if flavour == "sync":
            return lambda: Client(relay.host, relay.port, timeout=5, **tls).close()
        return lambda: asyncio.run(AsyncClient.connect(relay.host, relay.port, timeout=5, **tls))

    wrong_host = server_with("wrong-host")
    error = refused(connect(wrong_host, ca_file=ca))
    assert "certificate verification failed" in error.message and "127.0.0.1" in error.message
    untrusted = server_with("untrusted")
    error = refused(connect(untrusted, ca_file=ca))
    assert "certificate verification failed" in error.message and ("issuer" in error.message or "self-signed" in error.message)
    good = server_with("server")
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


def test_a_server_without_alpn_is_accepted(tls_dir, clear_server):
    # pushwired always selects pwire/1; a server that takes no part in ALPN is the relay.
    relay = TLSRelay(str(tls_dir / "server.pem"), str(tls_dir / "server.key"), (clear_server.host, clear_server.port), alpn=[])
    try:
        with Client(relay.host, relay.port, timeout=5, ca_file=str(tls_dir / "ca.pem")) as client:
            assert client._sock.selected_alpn_protocol() is None
            assert client.health.check().status == health_pb2.SERVING_STATUS_SERVING
    finally:
        relay.stop()


def test_client_certificate_for_the_admin_service(tls_dir):
    """pushwired --tls-client-ca: the Admin service needs a client certificate besides the admin
    token; the other services need none."""
    running = start_tls_server(tls_dir, "server", ["--tls-client-ca", str(tls_dir / "ca.pem")])
    ca = str(tls_dir / "ca.pem")
    try:
        with Client(running.host, running.port, timeout=5, ca_file=ca, token=running.admin_token,
                    client_cert=str(tls_dir / "client.pem"), client_key=str(tls_dir / "client.key")) as client:
            assert client.health.check().status == health_pb2.SERVING_STATUS_SERVING
            assert client.admin.create_application(name="with-a-certificate").application.code
        with Client(running.host, running.port, timeout=5, ca_file=ca, token=running.admin_token) as client:
            assert client.health.check().status == health_pb2.SERVING_STATUS_SERVING
            with pytest.raises(PushwireError) as info:
                client.admin.create_application(name="without-one")
            assert info.value.code is StatusCode.PERMISSION_DENIED
            assert "client certificate" in info.value.message
    finally:
        running.stop()


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
