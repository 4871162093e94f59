#!/usr/bin/env python3
"""A local double of Apple's APNs provider API, for Pushwire's tests and benchmarks.

A real HTTP/2-over-TLS server (the `h2` package on asyncio). It checks what APNs checks — the ES256
provider token against the app's public key and the claims, the path, the apns-* headers (push
type alert or background; a background push at priority 5 with `content-available` and no
alert, sound or badge), the payload size — answers like APNs, and appends one JSON line per answered request to --log.

Misbehaviour on demand:
  --rule TOKEN=STATUS:REASON[:RETRY_AFTER[:TIMES]]
                                            answer this device token with STATUS/REASON (the
                                            first TIMES requests only, then normally, when TIMES
                                            is given; RETRY_AFTER may be empty)
  --expire-first-jwt                        answer 403 ExpiredProviderToken to the first JWT seen
  --goaway-after N                          after answering N requests on a connection, send
                                            GOAWAY and close it
  --drop-after N                            after answering N requests on a connection, accept
                                            the next one (logged with "dropped": true) but lose
                                            its answer: close the connection without answering
                                            it or sending GOAWAY, as a crash after delivery would
  --delay-ms N                              answer each request N ms after it arrives
  --alpn PROTO                              offer PROTO in ALPN instead of h2 (repeatable): with
                                            --alpn http/1.1 the double does not speak HTTP/2, for
                                            tests that a client refuses such a server
On SIGTERM it stops accepting, closes every connection after flushing the answers already given,
and exits: requests it had not answered were not recorded, and its GOAWAY names a last stream below
each of them (as a server that stops does), so a client may send them again.

Prints "PORT <n>" on stdout once it listens.
"""
import argparse
import asyncio
import json
import os
import re
import sys
import time

import h2.errors
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

# The HTTP/2-over-TLS plumbing both push-service doubles share lives in Scripts/h2-double.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "h2-double"))
import h2_double  # noqa: E402

UUID_RE = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
PATH_RE = re.compile(r"^/3/device/([0-9a-fA-F]+)$")
MAX_PAYLOAD = 4096
DEAD_TOKEN_TIMESTAMP = 1754000000000  # what 410 answers carry as "timestamp" (ms since 1970)


class Double(h2_double.DoubleState):
    def __init__(self, args):
        with open(args.public_key, "rb") as f:
            self.public_key = serialization.load_pem_public_key(f.read())
        self.rules = h2_double.parse_rules(args.rule, key=str.lower)
        super().__init__(args)  # opens --log: only once the key and the rules have been read
        self.verified = {}  # jwt -> error reason or None
        self.expired_jwt = None

    def check_jwt(self, jwt):
        if jwt in self.verified:
            return self.verified[jwt]
        reason = None
        try:
            header_b64, claims_b64, signature_b64 = jwt.split(".")
            header = json.loads(h2_double.b64url_decode(header_b64))
            claims = json.loads(h2_double.b64url_decode(claims_b64))
            signature = h2_double.b64url_decode(signature_b64)
            if header.get("alg") != "ES256" or header.get("kid") != self.args.key_id:
                reason = "InvalidProviderToken"
            elif claims.get("iss") != self.args.team_id or not isinstance(claims.get("iat"), int):
                reason = "InvalidProviderToken"
            elif abs(time.time() - claims["iat"]) > 3600:
                reason = "ExpiredProviderToken"
            elif len(signature) != 64:
                reason = "InvalidProviderToken"
            else:
                r = int.from_bytes(signature[:32], "big")
                s = int.from_bytes(signature[32:], "big")
                self.public_key.verify(encode_dss_signature(r, s), f"{header_b64}.{claims_b64}".encode(),
                                       ec.ECDSA(hashes.SHA256()))
        except (ValueError, KeyError, InvalidSignature, json.JSONDecodeError):
            reason = "InvalidProviderToken"
        self.verified[jwt] = reason
        return reason

    def answer(self, headers, body):
        """Returns (status, reason or None, retry_after or None, jwt_ok)."""
        jwt = headers.get("authorization", "")
        jwt = jwt[len("bearer "):] if jwt.startswith("bearer ") else None
        if jwt is None:
            return 403, "MissingProviderToken", None, False
        jwt_error = self.check_jwt(jwt)
        if jwt_error:
            return 403, jwt_error, None, False
        if self.args.expire_first_jwt:
            if self.expired_jwt is None:
                self.expired_jwt = jwt
            if jwt == self.expired_jwt:
                return 403, "ExpiredProviderToken", None, True
        if headers.get(":method") != "POST":
            return 405, "MethodNotAllowed", None, True
        match = PATH_RE.match(headers.get(":path", ""))
        if not match:
            return 404, "BadPath", None, True
        if headers.get("apns-topic") != self.args.topic:
            return 400, "BadTopic" if "apns-topic" in headers else "MissingTopic", None, True
        push_type = headers.get("apns-push-type")
        if push_type not in ("alert", "background"):
            return 400, "InvalidPushType", None, True
        if not UUID_RE.match(headers.get("apns-id", "")):
            return 400, "BadMessageId", None, True
        if headers.get("apns-priority") not in ("1", "5", "10"):
            return 400, "BadPriority", None, True
        if push_type == "background":
            # Apple: background pushes go at priority 5, with content-available and nothing shown.
            try:
                aps = json.loads(body).get("aps", {})
            except ValueError:
                return 400, "BadPayload", None, True
            if headers.get("apns-priority") != "5":
                return 400, "BadPriority", None, True
            if aps.get("content-available") != 1 or any(k in aps for k in ("alert", "sound", "badge")):
                return 400, "InvalidPushType", None, True
        if not re.match(r"^[0-9]+$", headers.get("apns-expiration", "")):
            return 400, "BadExpirationDate", None, True
        if len(headers.get("apns-collapse-id", "").encode()) > 64:
            return 400, "BadCollapseId", None, True
        if len(body) > MAX_PAYLOAD:
            return 413, "PayloadTooLarge", None, True
        rule = self.rules.get(match.group(1).lower())
        if rule and rule[3] != 0:
            if rule[3] is not None:
                rule[3] -= 1
            return rule[0], rule[1], rule[2], True
        return 200, None, None, True


class Connection(h2_double.Connection):
    def __init__(self, double):
        super().__init__(double)
        self.answered = 0

    def log(self, stream_id, headers, body, status, reason, jwt_ok, dropped=False):
        """Appends the request's line to --log."""
        if not self.double.log:
            return
        record = {
            "connection": self.id, "stream": stream_id, "status": status, "reason": reason,
            "path": headers.get(":path"), "method": headers.get(":method"),
            "headers": {k: v for k, v in headers.items() if not k.startswith(":")},
            "jwt_ok": jwt_ok, "body": body.decode("utf-8", "replace"),
            "open_streams": self.double.open_streams + 1, "peak_open_streams": self.double.peak_open_streams,
            "connections": len(self.double.connections),
        }
        if dropped:
            record["dropped"] = True
        self.double.log.write(json.dumps(record) + "\n")

    def respond(self, stream_id):
        if self.closing or stream_id not in self.streams:
            return
        headers, body = self.streams.pop(stream_id)
        status, reason, retry_after, jwt_ok = self.double.answer(headers, bytes(body))
        drop_after = self.double.args.drop_after
        if drop_after and self.answered >= drop_after:
            self.double.open_streams -= 1
            self.log(stream_id, headers, body, status, reason, jwt_ok, dropped=True)
            self.close()
            return
        response_headers = [(":status", str(status)), ("apns-id", headers.get("apns-id", ""))]
        payload = b""
        if reason:
            error = {"reason": reason}
            if status == 410:
                error["timestamp"] = DEAD_TOKEN_TIMESTAMP
            payload = json.dumps(error).encode()
            response_headers.append(("content-type", "application/json"))
        if retry_after:
            response_headers.append(("retry-after", retry_after))
        response_headers.append(("content-length", str(len(payload))))
        try:
            self.h2.send_headers(stream_id, response_headers, end_stream=not payload)
            if payload:
                self.h2.send_data(stream_id, payload, end_stream=True)
        except Exception:
            return
        self.double.open_streams -= 1
        self.answered += 1
        self.log(stream_id, headers, body, status, reason, jwt_ok)
        goaway_after = self.double.args.goaway_after
        if goaway_after and self.answered >= goaway_after:
            self.h2.close_connection(error_code=h2.errors.ErrorCodes.NO_ERROR, last_stream_id=stream_id)
            self.transport.write(self.h2.data_to_send())
            self.close()
        else:
            self.transport.write(self.h2.data_to_send())


async def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    h2_double.add_server_arguments(parser)
    parser.add_argument("--public-key", required=True, help="PEM public key of the app's .p8")
    parser.add_argument("--team-id", required=True)
    parser.add_argument("--key-id", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--log", help="append one JSON line per answered request here")
    parser.add_argument("--rule", action="append")
    parser.add_argument("--expire-first-jwt", action="store_true")
    parser.add_argument("--goaway-after", type=int, default=0)
    parser.add_argument("--drop-after", type=int, default=0)
    parser.add_argument("--delay-ms", type=int, default=0)
    parser.add_argument("--max-streams", type=int, default=1000)
    parser.add_argument("--alpn", action="append")
    args = parser.parse_args()

    await h2_double.serve(args, Double(args), Connection, args.alpn or ["h2"])


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
