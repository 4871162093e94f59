#!/usr/bin/env python3
"""A local double of Firebase Cloud Messaging's HTTP v1 API and of Google's OAuth2 token
endpoint, for Pushwire's tests and benchmarks.

A real HTTP/2-over-TLS server (the `h2` package on asyncio) answering two paths:

  POST /token                              the JWT bearer grant (RFC 7523): checks the RS256
                                           assertion against --public-key and its claims (iss
                                           --client-email, aud the token URI, the firebase.messaging
                                           scope, iat/exp), answers an access token
  POST /v1/projects/<project>/messages:send
                                           checks the bearer token (one it granted and that has not
                                           expired, else 401 UNAUTHENTICATED), the project and the
                                           message (a token; data values all strings; android
                                           priority, ttl, collapse_key), answers like FCM

Misbehaviour on demand:
  --rule TOKEN=STATUS:ERRORCODE[:RETRY_AFTER[:TIMES]]
                                           answer this device token with STATUS and FCM error code
                                           ERRORCODE (the first TIMES requests only, when given)
  --reject-first-token                     answer 401 to every send carrying the first access token
                                           granted (as if it had been revoked)
  --token-ttl N                            access tokens live N seconds (default 3600)
  --delay-ms N                             answer each send N ms after it arrives
  --stall-grants-after N [--stall-grants-ms MS]
                                           answer the token grants after the first N only MS
                                           (default 30000) ms after they arrive: a token endpoint
                                           that hangs
  --drop-after N                           after answering N sends on a connection, accept the
                                           next send (logged with "dropped": true, as delivered)
                                           but lose its answer: close the connection without
                                           answering it or sending GOAWAY, as a crash after
                                           delivery would
On SIGTERM it stops accepting, closes every connection after flushing the answers already given,
and exits: the tokens it granted are forgotten (a restarted double answers them 401).

Appends one JSON line per answered request to --log: {"kind": "token"|"send", "status", ...}.
Prints "PORT <n>" on stdout once it listens.
"""
import argparse
import asyncio
import json
import os
import re
import secrets
import sys
import time
import urllib.parse

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

# The HTTP/2-over-TLS plumbing both push-service doubles share lives in Scripts/h2-double.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "h2-double"))
import h2_double  # noqa: E402

SEND_RE = re.compile(r"^/v1/projects/([a-z0-9-]+)/messages:send$")
TTL_RE = re.compile(r"^[0-9]+(\.[0-9]{1,9})?s$")
SCOPE = "https://www.googleapis.com/auth/firebase.messaging"
GRANT_TYPE = "urn:ietf:params:oauth:grant-type:jwt-bearer"
MAX_MESSAGE = 4096


def fcm_error(status, code, message, token_field=False):
    names = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
             429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}
    details = [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": code}]
    if token_field:
        details.append({"@type": "type.googleapis.com/google.rpc.BadRequest",
                        "fieldViolations": [{"field": "message.token", "description": "Invalid registration token"}]})
    return {"error": {"code": status, "message": message, "status": names.get(status, "UNKNOWN"), "details": details}}


class Double(h2_double.DoubleState):
    def __init__(self, args):
        with open(args.public_key, "rb") as f:
            self.public_key = serialization.load_pem_public_key(f.read())
        self.rules = h2_double.parse_rules(args.rule)
        super().__init__(args)  # opens --log: only once the key and the rules have been read
        self.tokens = {}  # access token -> expiry (time.time())
        self.first_token = None
        self.port = None
        self.grants_received = 0

    def token_uri(self):
        return self.args.token_uri or f"https://127.0.0.1:{self.port}/token"

    def grant(self, body):
        """Returns (status, response object, error text or None)."""
        form = urllib.parse.parse_qs(body.decode("ascii", "replace"))
        if form.get("grant_type") != [GRANT_TYPE]:
            return 400, {"error": "unsupported_grant_type"}, "grant_type"
        assertion = (form.get("assertion") or [""])[0]
        try:
            header_b64, claims_b64, signature_b64 = assertion.split(".")
            header = json.loads(h2_double.b64url_decode(header_b64))
            claims = json.loads(h2_double.b64url_decode(claims_b64))
            self.public_key.verify(h2_double.b64url_decode(signature_b64), f"{header_b64}.{claims_b64}".encode(),
                                   padding.PKCS1v15(), hashes.SHA256())
        except (ValueError, KeyError, InvalidSignature, json.JSONDecodeError):
            return 400, {"error": "invalid_grant", "error_description": "Invalid JWT Signature."}, "signature"
        now = time.time()
        if header.get("alg") != "RS256":
            return 400, {"error": "invalid_grant"}, "alg"
        if self.args.key_id and header.get("kid") != self.args.key_id:
            return 400, {"error": "invalid_grant"}, "kid"
        if claims.get("iss") != self.args.client_email:
            return 400, {"error": "invalid_grant"}, "iss"
        if claims.get("aud") != self.token_uri():
            return 400, {"error": "invalid_grant"}, "aud"
        if SCOPE not in str(claims.get("scope", "")).split(" "):
            return 400, {"error": "invalid_scope"}, "scope"
        iat, exp = claims.get("iat"), claims.get("exp")
        if not isinstance(iat, int) or not isinstance(exp, int) or abs(now - iat) > 300 or exp <= iat or exp - iat > 3600:
            return 400, {"error": "invalid_grant", "error_description": "Invalid JWT: times"}, "iat/exp"
        token = "ya29.double-" + secrets.token_urlsafe(24)
        self.tokens[token] = now + self.args.token_ttl
        if self.first_token is None:
            self.first_token = token
        return 200, {"access_token": token, "expires_in": self.args.token_ttl, "token_type": "Bearer"}, None

    def send(self, headers, body):
        """Returns (status, response object, retry_after or None, device token, bearer_ok)."""
        auth = headers.get("authorization", "")
        bearer = auth[len("Bearer "):] if auth.startswith("Bearer ") else None
        expiry = self.tokens.get(bearer)
        if bearer is None or expiry is None or expiry < time.time() or (self.args.reject_first_token and bearer == self.first_token):
            return 401, fcm_error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials."), None, None, False
        match = SEND_RE.match(headers.get(":path", ""))
        if headers.get(":method") != "POST" or not match:
            return 404, fcm_error(404, "NOT_FOUND", "no such method"), None, None, True
        if match.group(1) != self.args.project:
            return 403, fcm_error(403, "SENDER_ID_MISMATCH", "wrong project"), None, None, True
        if headers.get("content-type", "").split(";")[0] != "application/json":
            return 400, fcm_error(400, "INVALID_ARGUMENT", "content-type"), None, None, True
        try:
            message = json.loads(body)["message"]
            token = message["token"]
            assert isinstance(token, str) and token
        except (ValueError, KeyError, TypeError, AssertionError):
            return 400, fcm_error(400, "INVALID_ARGUMENT", "The message has no token", token_field=True), None, None, True
        problem = None
        data = message.get("data", {})
        if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
            problem = "data values must be strings"
        elif any(k in ("from", "notification", "message_type") or k.startswith("google") or k.startswith("gcm") for k in data):
            problem = "reserved data key"
        android = message.get("android", {})
        if android.get("priority", "HIGH") not in ("HIGH", "NORMAL"):
            problem = "android.priority"
        elif "ttl" in android and not TTL_RE.match(android["ttl"]):
            problem = "android.ttl"
        elif len(json.dumps(data)) > MAX_MESSAGE:
            problem = "message too big"
        if problem:
            return 400, fcm_error(400, "INVALID_ARGUMENT", problem), None, token, True
        rule = self.rules.get(token)
        if rule and rule[3] != 0:
            if rule[3] is not None:
                rule[3] -= 1
            status, code, retry_after = rule[0], rule[1], rule[2]
            return status, fcm_error(status, code, f"rule for {token}", token_field=(code == "INVALID_ARGUMENT")), retry_after, token, True
        return 200, {"name": f"projects/{self.args.project}/messages/0:{secrets.token_hex(8)}"}, None, token, True


class Connection(h2_double.Connection):
    def __init__(self, double):
        super().__init__(double)
        self.sends_answered = 0

    def delay_seconds(self, stream_id):
        # --delay-ms slows sends only; grants after the first --stall-grants-after wait
        # --stall-grants-ms (a token endpoint that hangs).
        path = self.streams.get(stream_id, ({}, None))[0].get(":path", "")
        if path != "/token":
            return self.double.args.delay_ms / 1000
        self.double.grants_received += 1
        stalled = self.double.args.stall_grants_after is not None and self.double.grants_received > self.double.args.stall_grants_after
        return self.double.args.stall_grants_ms / 1000 if stalled else 0

    def respond(self, stream_id):
        if self.closing or stream_id not in self.streams:
            return
        headers, body = self.streams.pop(stream_id)
        body = bytes(body)
        retry_after = None
        if headers.get(":path") == "/token" and headers.get(":method") == "POST":
            status, answer, problem = self.double.grant(body)
            record = {"kind": "token", "status": status, "problem": problem}
        else:
            status, answer, retry_after, token, bearer_ok = self.double.send(headers, body)
            record = {"kind": "send", "status": status, "token": token, "bearer_ok": bearer_ok,
                      "path": headers.get(":path"), "authorization": headers.get("authorization", ""),
                      "body": body.decode("utf-8", "replace"), "open_streams": self.double.open_streams + 1,
                      "peak_open_streams": self.double.peak_open_streams, "connections": len(self.double.connections)}
            if status != 200:
                record["error"] = answer["error"]["details"][0]["errorCode"]
            drop_after = self.double.args.drop_after
            if drop_after and self.sends_answered >= drop_after:
                self.double.open_streams -= 1
                record.update(connection=self.id, stream=stream_id, dropped=True)
                if self.double.log:
                    self.double.log.write(json.dumps(record) + "\n")
                self.close()
                return
            self.sends_answered += 1
        payload = json.dumps(answer).encode()
        response_headers = [(":status", str(status)), ("content-type", "application/json"),
                            ("content-length", str(len(payload)))]
        if retry_after:
            response_headers.append(("retry-after", retry_after))
        try:
            self.h2.send_headers(stream_id, response_headers)
            self.h2.send_data(stream_id, payload, end_stream=True)
        except Exception:
            return
        self.double.open_streams -= 1
        record["connection"] = self.id
        record["stream"] = stream_id
        if self.double.log:
            self.double.log.write(json.dumps(record) + "\n")
        self.transport.write(self.h2.data_to_send())

async def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    h2_double.add_server_arguments(parser)
    parser.add_argument("--public-key", required=True, help="PEM public key of the service account's RSA key")
    parser.add_argument("--client-email", required=True, help="the service account's e-mail (the JWT iss)")
    parser.add_argument("--key-id", default="", help="the key's id (the JWT kid), checked when given")
    parser.add_argument("--project", required=True, help="the Firebase project id")
    parser.add_argument("--token-uri", help="the aud the JWT must carry (default https://127.0.0.1:<port>/token)")
    parser.add_argument("--token-ttl", type=int, default=3600)
    parser.add_argument("--log", help="append one JSON line per answered request here")
    parser.add_argument("--rule", action="append")
    parser.add_argument("--reject-first-token", action="store_true")
    parser.add_argument("--delay-ms", type=int, default=0)
    parser.add_argument("--stall-grants-after", type=int, metavar="N",
                        help="answer every token grant after the first N only --stall-grants-ms later")
    parser.add_argument("--stall-grants-ms", type=int, default=30_000)
    parser.add_argument("--drop-after", type=int, default=0)
    parser.add_argument("--max-streams", type=int, default=1000)
    args = parser.parse_args()

    double = Double(args)

    def listening(port):
        double.port = port  # the default aud (token_uri) names it

    await h2_double.serve(args, double, Connection, ["h2"], on_listening=listening)


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
