#!/usr/bin/env python3
"""A webhook receiver for trying radref's deliveries locally (`make receiver`).

It listens on 127.0.0.1, verifies both signatures of every delivery with the Python standard
library only, answers 200 (or 401 when a signature does not verify), and prints what arrived.
Subscribe it with `http://127.0.0.1:<port>/` under `make dev` (which allows http to loopback).

    RADREF_RECEIVER_SECRET='the secret you subscribed with' python3 scripts/receiver.py --port 9000

The secret is read from the environment, so it is not on the command line that `ps` shows to
every user of the machine (`--secret` still works, with that drawback).
"""
import argparse
import base64
import hashlib
import hmac
import json
import os
import time
from http.server import BaseHTTPRequestHandler, HTTPServer


def verify(secret: bytes, headers, body: bytes) -> list[str]:
    """The problems with a delivery's signatures; empty when both verify."""
    problems = []
    expected = "sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest()
    # During a secret rotation's overlap each header holds one signature per secret.
    radref = headers.get("X-Radref-Signature", "").split(" ")
    if not any(hmac.compare_digest(expected, s) for s in radref):
        problems.append("X-Radref-Signature does not match")
    msg_id = headers.get("webhook-id", "")
    timestamp = headers.get("webhook-timestamp", "")
    signed = f"{msg_id}.{timestamp}.".encode() + body
    mac = base64.b64encode(hmac.new(secret, signed, hashlib.sha256).digest()).decode()
    offered = headers.get("webhook-signature", "").split(" ")
    if not any(hmac.compare_digest(f"v1,{mac}", s) for s in offered):
        problems.append("webhook-signature does not match")
    if not timestamp.isdigit() or abs(time.time() - int(timestamp)) > 300:
        problems.append("webhook-timestamp is more than 5 minutes off")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=9000)
    parser.add_argument("--secret", help="prefer the environment variable RADREF_RECEIVER_SECRET")
    args = parser.parse_args()
    secret = (args.secret or os.environ.get("RADREF_RECEIVER_SECRET", "")).encode()
    if not secret:
        parser.error("set RADREF_RECEIVER_SECRET (or --secret) to the secret you subscribed with")
    seen = set()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            problems = verify(secret, self.headers, body)
            event_id = self.headers.get("webhook-id", "?")
            duplicate = event_id in seen
            seen.add(event_id)
            status = 401 if problems else 200
            self.send_response(status)
            self.end_headers()
            event = json.loads(body or b"{}")
            print(
                f"{status} {event.get('type')} {event_id} attempt {self.headers.get('X-Radref-Attempt')}"
                + (" (already seen: deduplicate by id)" if duplicate else "")
                + ("".join(f"\n    {p}" for p in problems))
                + f"\n    data: {json.dumps(event.get('data'))}",
                flush=True,
            )

        def log_message(self, *args):
            pass

    print(f"listening on http://127.0.0.1:{args.port}/ (Ctrl-C stops it)", flush=True)
    HTTPServer(("127.0.0.1", args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
