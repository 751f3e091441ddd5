"""Kill the worker with webhook deliveries in every state, restart it, and show that every one
is delivered exactly once.

Run by `make test` (scripts/test.sh) after the other phases, against the same local D1 state:

    python3 tests/restart/recovery.py STATE_DIR -- <wrangler dev arguments...>

It starts `wrangler dev` itself (in its own process group, on a free port), so it can kill it
with SIGKILL, as a crash or a power cut would, and start it again on the same state. Local
queues live in memory: every message in flight is lost with the process, which is the case
the recovery sweep exists for. Deliveries left behind, per subscriber path:

- /fail: attempt 1 answered 500; the retry's message is waiting in the queue (between retries);
- /hang: attempt 1 is mid-POST (the subscriber has the request and has not answered);
- /queued: published a moment before the kill; the message is still in the queue.

After the restart the Cron Trigger is fired through wrangler's /__scheduled (as the platform
fires it every two minutes) until the subscriber has answered 2xx once for every delivery.

Then a crash of the other kind: a panic inside the wasm instance (the test environment's
/__test/panic) must cost that one request, and the next ones must be answered by a fresh
instance. That instance has read no pack of the corpus store: one detail reads one pack,
search, the list, OpenAPI and the MCP tools list at most two more, and every detail all.
"""

import http.server
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

KEY = "rr_whsc0012_webhookScenarioKeyNumber0012"
SECRET = "restart-test-shared-secret-01"
SWEEP_CRON = "*/2 * * * *"
# Due time plus the 30-second lease, plus the retry delay of the /fail deliveries and slack.
DEADLINE_SECS = 150


def log(line):
    print(f"recovery: {line}", flush=True)


class Subscriber(http.server.BaseHTTPRequestHandler):
    """Answers by path; records every request with the status it got (None: no answer)."""

    received = []
    lock = threading.Lock()
    release = threading.Event()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        delivery = self.headers.get("x-radref-delivery")
        with self.lock:
            before = sum(1 for r in self.received if r["delivery"] == delivery)
            entry = {"path": self.path, "delivery": delivery, "status": None, "body": body,
                     "attempt": self.headers.get("x-radref-attempt")}
            self.received.append(entry)
        if before == 0 and self.path == "/fail":
            status = 500
        elif before == 0 and self.path == "/hang":
            # Hold the request until the worker that sent it is dead, then drop it unanswered.
            self.release.wait(120)
            self.close_connection = True
            return
        else:
            status = 200
        entry["status"] = status
        self.send_response(status)
        self.send_header("content-length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args):
        pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Worker:
    def __init__(self, state, args):
        self.state, self.args, self.proc, self.base = state, args, None, None

    def start(self):
        port = free_port()
        self.base = f"http://127.0.0.1:{port}"
        out = open(os.path.join(self.state, "recovery-wrangler.log"), "ab")
        self.proc = subprocess.Popen(
            ["wrangler", "dev", "--ip", "127.0.0.1", "--port", str(port), "--persist-to",
             self.state, "--show-interactive-dev-session=false", "--test-scheduled", *self.args],
            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True)
        for _ in range(180):
            try:
                if request(self.base, "GET", "/api/v1/health", auth=False)[0] == 200:
                    log(f"worker answering on {self.base}")
                    return
            except OSError:
                pass
            if self.proc.poll() is not None:
                break
            time.sleep(1)
        fail("wrangler dev did not answer; see recovery-wrangler.log in the state directory")

    def kill(self):
        """SIGKILL to the whole group: wrangler, workerd, everything in flight."""
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def request(base, method, path, body=None, auth=True):
    headers = {"content-type": "application/json"}
    if auth:
        headers["authorization"] = f"Bearer {KEY}"
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def fail(message):
    print(f"\nrecovery: FAILED: {message}", file=sys.stderr, flush=True)
    sys.exit(1)


def wait_until(what, predicate, secs):
    end = time.time() + secs
    while time.time() < end:
        if predicate():
            return
        time.sleep(0.2)
    fail(f"timed out waiting for {what}")


def snapshot():
    with Subscriber.lock:
        return list(Subscriber.received)


def main():
    state, args = sys.argv[1], sys.argv[sys.argv.index("--") + 1:]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Subscriber)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    receiver = f"http://127.0.0.1:{server.server_address[1]}"
    worker = Worker(state, args)
    worker.start()
    try:
        run(worker, receiver)
        panic_recovery(worker)
    finally:
        Subscriber.release.set()
        worker.kill()


def subscribe(worker, receiver, path):
    status, body = request(worker.base, "POST", "/api/v1/webhooks", {
        "url": receiver + path, "events": ["report.sent"], "secret": SECRET})
    if status != 201:
        fail(f"subscribe {path}: {status} {body!r}")
    return json.loads(body)["data"]["id"]


def test_event(worker, webhook):
    status, body = request(worker.base, "POST", f"/api/v1/webhooks/{webhook}/test",
                           {"type": "report.sent"})
    if status != 202:
        fail(f"test event to {webhook}: {status} {body!r}")


def run(worker, receiver):
    hooks = {path: subscribe(worker, receiver, path) for path in ("/fail", "/hang", "/queued")}
    for _ in range(3):
        test_event(worker, hooks["/fail"])
    wait_until("three failed first attempts",
               lambda: sum(1 for r in snapshot() if r["path"] == "/fail") >= 3, 30)
    # Let the consumer record the failures (the retries are then waiting in the queue).
    time.sleep(2)
    for _ in range(2):
        test_event(worker, hooks["/hang"])
    wait_until("two attempts mid-POST",
               lambda: sum(1 for r in snapshot() if r["path"] == "/hang") >= 2, 30)
    for _ in range(3):
        test_event(worker, hooks["/queued"])
    worker.kill()
    killed_at = time.time()
    before = snapshot()
    log("killed with 3 deliveries between retries, 2 mid-POST, 3 queued")
    if any(r["path"] == "/queued" for r in before):
        fail("a queued delivery was consumed before the kill: the case is not covered")
    if any(r["status"] == 200 for r in before):
        fail("a delivery succeeded before the kill: the case is not covered")
    Subscriber.release.set()

    worker.start()
    expected = {"/fail": 3, "/hang": 2, "/queued": 3}

    def delivered():
        ok = [r for r in snapshot() if r["status"] == 200]
        return all(sum(1 for r in ok if r["path"] == p) >= n for p, n in expected.items())

    cron = urllib.request.quote(SWEEP_CRON)
    while not delivered():
        if time.time() - killed_at > DEADLINE_SECS:
            fail(f"not every delivery arrived within {DEADLINE_SECS}s of the restart: "
                 f"{[(r['path'], r['delivery'], r['status']) for r in snapshot()]}")
        status, body = request(worker.base, "GET", f"/__scheduled?cron={cron}", auth=False)
        if status != 200:
            fail(f"/__scheduled: {status} {body!r}")
        time.sleep(5)
    log(f"every delivery arrived {time.time() - killed_at:.0f}s after the kill")
    # One more sweep and a pause: nothing may arrive twice.
    request(worker.base, "GET", f"/__scheduled?cron={cron}", auth=False)
    time.sleep(5)
    got = snapshot()
    deliveries = {r["delivery"] for r in got}
    if len(deliveries) != 8:
        fail(f"expected 8 deliveries, saw {len(deliveries)}")
    for delivery in sorted(deliveries):
        answered = [r for r in got if r["delivery"] == delivery and r["status"] == 200]
        if len(answered) != 1:
            fail(f"delivery {delivery} answered 2xx {len(answered)} times")
    for path, webhook in hooks.items():
        status, body = request(worker.base, "GET", f"/api/v1/webhooks/{webhook}/deliveries")
        if status != 200:
            fail(f"delivery log of {path}: {status} {body!r}")
        rows = json.loads(body)["data"]
        succeeded = [r for r in rows if r.get("outcome") == "succeeded"]
        if len(succeeded) != expected[path]:
            fail(f"{path}: the log shows {len(succeeded)} succeeded attempts, "
                 f"expected {expected[path]}: {rows}")
    log("8 deliveries, each answered 2xx exactly once; the delivery logs agree")


def packs(worker):
    """The corpus store's packs, and how many the instance has read (GET /api/v1/health)."""
    status, body = request(worker.base, "GET", "/api/v1/health", auth=False)
    if status != 200:
        fail(f"health answered {status}: {body[:300]!r}")
    corpus = json.loads(body)["corpus"]
    return corpus["packs"], corpus["packs_read"]


def panic_recovery(worker):
    status, body = request(worker.base, "GET", "/__test/panic", auth=False)
    if status != 500:
        fail(f"/__test/panic answered {status}, expected 500: {body!r}")
    # The fresh instance has read no pack of the corpus store (make test builds the worker
    # with the bodies in several packs); each request reads only the packs it meets.
    total, read = packs(worker)
    if total < 2 or read != 0:
        fail(f"a fresh instance: {read} of {total} packs read, expected 0 of several")
    for path in ("/api/v1/systems/fleischner-2017", "/api/v1/webhooks"):
        status, body = request(worker.base, "GET", path, auth=path.startswith("/api/v1/webhooks"))
        if status != 200:
            fail(f"after a panic, {path} answered {status}: {body[:300]!r}")
    if packs(worker) != (total, 1):
        fail(f"one detail read {packs(worker)[1]} of {total} packs, expected 1")
    for path in ("/api/v1/search?q=fleischner", "/api/v1/systems", "/api/v1/openapi"):
        status, body = request(worker.base, "GET", path, auth=False)
        if status != 200:
            fail(f"{path} answered {status}: {body[:300]!r}")
    status, body = request(worker.base, "POST", "/mcp", {
        "jsonrpc": "2.0", "id": 1, "method": "tools/list"}, auth=False)
    if status != 200 or "radref_ground" not in body.decode():
        fail(f"MCP tools/list answered {status}: {body[:300]!r}")
    if packs(worker)[1] > 3:
        fail(f"search, the list, OpenAPI and the MCP tools list read {packs(worker)[1] - 1} "
             "more packs: they need two systems' bodies at most (the document's examples of "
             "an evaluation and of two versions)")
    slugs = [s["slug"] for s in json.loads(request(
        worker.base, "GET", "/api/v1/systems", auth=False)[1])["data"]]
    for slug in slugs:
        status, body = request(worker.base, "GET", f"/api/v1/systems/{slug}", auth=False)
        if status != 200 or json.loads(body)["slug"] != slug:
            fail(f"the detail of {slug}: {status} {body[:200]!r}")
    if packs(worker) != (total, total):
        fail(f"every detail read {packs(worker)[1]} of {total} packs")
    log(f"a panic cost its own request (500); the next ones were answered by a fresh instance, "
        f"which read 1 of {total} packs for one detail and all {total} for all {len(slugs)}")


if __name__ == "__main__":
    main()
