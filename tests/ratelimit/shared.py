"""The location's shared rate limiters (wrangler.toml's [[ratelimits]], the Workers Rate
Limiting binding) refuse what each isolate's own counter would still allow.

Run by `make test` (scripts/test.sh) after the main worker has stopped, on the same local D1
state (its test keys):

    python3 tests/ratelimit/shared.py STATE_DIR

It writes a copy of wrangler.toml whose shared limits are 5 requests per 60 seconds
(`wrangler.shared-test.toml` beside it, so its relative paths hold), starts `wrangler dev` on
it with the isolate's own limits set far higher, and checks, for a client address on a corpus
route and for a key on a template route: five requests answered, the sixth refused with 429,
`X-RateLimit-Remaining: 0` and `Retry-After: 60` (the binding's longest period); another client
or key is counted apart. The limiter counts per location: here, the one local process.
"""

import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIG = os.path.join(ROOT, "wrangler.shared-test.toml")
# Keys no other phase uses (tests/fixtures/keys.sql).
FIRST_KEY = "rr_rlshare1_sharedRateLimitTestKeyNumber01"
SECOND_KEY = "rr_rlshare2_sharedRateLimitTestKeyNumber02"
SHARED_LIMIT = 5


def log(line):
    print(f"shared limits: {line}", flush=True)


def fail(message):
    print(f"\nshared limits: FAILED: {message}", file=sys.stderr, flush=True)
    sys.exit(1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(base, path, ip, key=None):
    req = urllib.request.Request(base + path, headers={"cf-connecting-ip": ip})
    if key:
        req.add_header("authorization", f"Bearer {key}")
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, resp.headers
    except urllib.error.HTTPError as err:
        return err.code, err.headers


def main():
    state = sys.argv[1]
    with open(os.path.join(ROOT, "wrangler.toml")) as f:
        toml = f.read()
    shared, count = re.subn(r"simple = \{ limit = \d+, period = (\d+) \}",
                            f"simple = {{ limit = {SHARED_LIMIT}, period = 60 }}", toml)
    if count != 2:
        fail(f"expected two [[ratelimits]] in wrangler.toml, found {count}")
    with open(CONFIG, "w") as f:
        f.write(shared)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    out = open(os.path.join(state, "shared-wrangler.log"), "ab")
    proc = subprocess.Popen(
        ["wrangler", "dev", "--config", CONFIG, "--ip", "127.0.0.1", "--port", str(port),
         "--persist-to", state, "--show-interactive-dev-session=false",
         "--var", "ENVIRONMENT:test", "--var", "CORPUS_RATE_LIMIT:1000",
         "--var", "KEY_RATE_LIMIT:1000"],
        stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        for _ in range(180):
            try:
                if get(base, "/api/v1/health", "198.51.100.1")[0] == 200:
                    break
            except OSError:
                pass
            if proc.poll() is not None:
                fail("wrangler dev exited; see shared-wrangler.log in the state directory")
            time.sleep(1)
        else:
            fail("wrangler dev did not answer; see shared-wrangler.log in the state directory")
        log(f"worker answering on {base} with shared limits of {SHARED_LIMIT} per 60 s")
        # Addresses of this run alone: a limiter's window may outlive a worker.
        net = f"10.{random.randrange(256)}.{random.randrange(256)}"
        cases = [
            ("corpus, per client address", "/api/v1/systems/fleischner-2017",
             (f"{net}.10", None), (f"{net}.11", None)),
            ("templates, per key", "/api/v1/templates",
             (f"{net}.20", FIRST_KEY), (f"{net}.21", SECOND_KEY)),
        ]
        for name, path, (ip, key), (other_ip, other_key) in cases:
            for n in range(1, SHARED_LIMIT + 1):
                status, headers = get(base, path, ip, key)
                if status != 200:
                    fail(f"{name}: request {n} of {SHARED_LIMIT} answered {status}")
                # The headers count the isolate's window (1000 here), not the location's.
                if headers.get("X-RateLimit-Limit") != "1000":
                    fail(f"{name}: X-RateLimit-Limit {headers.get('X-RateLimit-Limit')}")
            status, headers = get(base, path, ip, key)
            if status != 429:
                fail(f"{name}: request {SHARED_LIMIT + 1} answered {status}, expected 429")
            if headers.get("X-RateLimit-Remaining") != "0" or headers.get("Retry-After") != "60":
                fail(f"{name}: 429 headers {dict(headers)}")
            status, _ = get(base, path, other_ip, other_key)
            if status != 200:
                fail(f"{name}: another client answered {status}")
            log(f"{name}: {SHARED_LIMIT} answered, the next refused (429, remaining 0, "
                "Retry-After 60), another counted apart")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            time.sleep(1)
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
        os.remove(CONFIG)


if __name__ == "__main__":
    main()
