#!/usr/bin/env python3
"""A tiny in-memory stand-in for pushwired, for developing the client tests while the real server
is being built. It accepts pushwired's flags (--listen, --data-dir, --admin-token), prints the
same `listening on HOST:PORT` line, and answers Health, Reflection, Admin, Devices and Categories
from memory (TrackAction and Messages: UNIMPLEMENTED, as on this session's server). The test
suite never uses it on its own: point $PUSHWIRED at it explicitly."""
from __future__ import annotations

import argparse
import secrets
import socket
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from google.protobuf.message import DecodeError  # noqa: E402

from pushwire import METHODS, PREFACE, FrameDecoder, ProtocolError, encode_frame  # noqa: E402
from pushwire.v1 import categories_pb2, common_pb2, health_pb2, reflection_pb2, rpc_pb2  # noqa: E402


class Failure(Exception):
    def __init__(self, code: int, message: str):
        self.code, self.message = code, message


class State:
    def __init__(self, admin_token: str):
        self.admin_token = admin_token
        self.lock = threading.Lock()
        self.apps: dict[str, dict] = {}

    def app_by_token(self, meta: dict) -> dict:
        auth = meta.get("authorization", "")
        if not auth.startswith("Bearer "):
            raise Failure(16, "missing bearer token")
        for app in self.apps.values():
            if app["token"] == auth[7:]:
                return app
        raise Failure(16, "unknown token")

    def app_by_code(self, code: str) -> dict:
        if code not in self.apps:
            raise Failure(5, f"unknown application {code}")
        return self.apps[code]

    def handle(self, path: str, req, meta: dict):
        info = METHODS[path]
        resp = info.response_type()
        if path == "/pushwire.v1.Health/Check":
            known = {p.split("/")[1] for p in HANDLED}
            resp.status = 1 if not req.service or req.service in known else 3
        elif path == "/pushwire.v1.Reflection/ListMethods":
            for p in sorted(HANDLED):
                m = METHODS[p]
                resp.methods.add(path=p, request_type=m.request_type.DESCRIPTOR.full_name,
                                 response_type=m.response_type.DESCRIPTOR.full_name)
        elif path.startswith("/pushwire.v1.Admin/"):
            if meta.get("authorization") != f"Bearer {self.admin_token}":
                raise Failure(16 if "authorization" not in meta else 7, "admin token required")
            if path.endswith("CreateApplication"):
                code = f"{secrets.token_hex(3).upper()[:5]}-{secrets.token_hex(3).upper()[:5]}"
                yes_no = categories_pb2.Category(category_id=1, name="YesNo")
                yes_no.buttons.add(id=0, label="Yes", start_application=True, authentication_required=True)
                yes_no.buttons.add(id=1, label="No")
                app = {"code": code, "name": req.name, "token": secrets.token_hex(32), "version": 1,
                       "categories": [yes_no], "devices": {}}
                self.apps[code] = app
                resp.application.code, resp.application.name = code, req.name
                resp.access_token = app["token"]
            elif path.endswith("ListApplications"):
                for app in self.apps.values():
                    resp.applications.add(code=app["code"], name=app["name"])
            else:
                raise Failure(12, "not in the mock")
        elif path == "/pushwire.v1.Devices/RegisterDevice":
            if not req.hwid:
                raise Failure(3, "hwid must not be empty")
            app = self.app_by_code(req.application)
            app["devices"][req.hwid] = req.push_token
            resp.categories_version = app["version"]
            if req.known_categories_version == app["version"]:
                resp.categories_not_modified = True
            else:
                resp.ios_categories.extend(app["categories"])
        elif path == "/pushwire.v1.Devices/SyncCategories":
            app = self.app_by_code(req.application)
            resp.version = app["version"]
            if req.known_version == app["version"]:
                resp.not_modified = True
            else:
                resp.categories.extend(app["categories"])
        elif path == "/pushwire.v1.Categories/UpsertCategory":
            app = self.app_by_token(meta)
            category = categories_pb2.Category()
            category.CopyFrom(req.category)
            category.category_id = len(app["categories"]) + 1
            app["categories"].append(category)
            app["version"] += 1
            resp.category.CopyFrom(category)
            resp.categories_version = app["version"]
        elif path == "/pushwire.v1.Categories/ListCategories":
            app = self.app_by_token(meta)
            resp.categories.extend(app["categories"])
            resp.categories_version = app["version"]
        else:
            raise Failure(12, f"{path} is not implemented")
        return resp


HANDLED = {"/pushwire.v1.Health/Check", "/pushwire.v1.Reflection/ListMethods",
           "/pushwire.v1.Admin/CreateApplication", "/pushwire.v1.Admin/ListApplications",
           "/pushwire.v1.Devices/RegisterDevice", "/pushwire.v1.Devices/SyncCategories",
           "/pushwire.v1.Categories/UpsertCategory", "/pushwire.v1.Categories/ListCategories"}


def serve_connection(sock: socket.socket, state: State) -> None:
    decoder = FrameDecoder(expects_preface=True)
    lock = threading.Lock()

    def send(frame):
        with lock:
            sock.sendall(encode_frame(frame))

    try:
        settings_sent = False
        while True:
            data = sock.recv(65536)
            if not data:
                return
            decoder.append(data)
            while True:
                try:
                    frame = decoder.next_frame()
                except ProtocolError:
                    return
                if not settings_sent and decoder._expects_preface is False:
                    sock.sendall(PREFACE)
                    s = rpc_pb2.Frame()
                    s.settings.max_frame_size = 4 << 20
                    s.settings.max_concurrent_calls = 1024
                    s.settings.server_name = "mock-pushwired"
                    s.settings.server_version = "0.0.0"
                    s.settings.protocol_version = 1
                    send(s)
                    settings_sent = True
                if frame is None:
                    break
                kind = frame.WhichOneof("kind")
                if kind == "ping":
                    pong = rpc_pb2.Frame()
                    pong.pong.payload = frame.ping.payload
                    send(pong)
                    continue
                if kind != "request":
                    continue
                out = rpc_pb2.Frame(call_id=frame.call_id)
                out.response.status.SetInParent()
                path = frame.request.method
                try:
                    if path not in METHODS:
                        raise Failure(12, f"unknown method {path}")
                    req = METHODS[path].request_type()
                    try:
                        req.ParseFromString(frame.request.message)
                    except DecodeError as exc:
                        raise Failure(3, f"request does not decode: {exc}") from exc
                    meta = {m.key: m.value for m in frame.request.metadata}
                    with state.lock:
                        resp = state.handle(path, req, meta)
                    out.response.message = resp.SerializeToString()
                except Failure as f:
                    out.response.status.code, out.response.status.message = f.code, f.message
                send(out)
    except OSError:
        return
    finally:
        sock.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--listen", default="127.0.0.1:7355")
    parser.add_argument("--data-dir")
    parser.add_argument("--admin-token", default="admin")
    args = parser.parse_args()
    host, port = args.listen.rsplit(":", 1)
    listener = socket.create_server((host.strip("[]"), int(port)))
    bound = listener.getsockname()
    print(f"listening on {bound[0]}:{bound[1]}", flush=True)
    state = State(args.admin_token)
    while True:
        sock, _ = listener.accept()
        threading.Thread(target=serve_connection, args=(sock, state), daemon=True).start()


if __name__ == "__main__":
    main()
