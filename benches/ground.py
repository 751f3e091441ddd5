"""The bench's grounding requests: the MCP tool `radref_ground` over a report, checked.

    python3 benches/ground.py table BASE FILE...   one line per report (scripts/bench.sh's
        reports.tsv): path, characters, findings ranked (+ more), answer bytes, rate units
    python3 benches/ground.py fresh BASE FILE N    the latencies of three groundings of FILE,
        one after another, as a markdown row numbered N (a fresh process's first requests)

Exits with the failing report and the start of its answer when an answer is not a 200 with
findings.
"""
import json
import sys
import time
import urllib.request


def ground(base, path, text):
    """POSTs `text` to BASE/mcp as a radref_ground call; the raw answer and its result."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": "radref_ground", "arguments": {"text": text}}})
    request = urllib.request.Request(f"{base}/mcp", data=body.encode(), headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
    with urllib.request.urlopen(request) as r:
        status, raw = r.status, r.read()
    result = json.loads(raw)["result"]
    if status != 200 or result.get("isError") or not result["structuredContent"]["findings"]:
        sys.exit(f"{path}: {status} {raw[:300]!r}")
    return raw, result["structuredContent"]


def table(base, files):
    for path in files:
        text = open(path, encoding="utf-8").read()
        raw, answer = ground(base, path, text)
        found = sum(1 for f in answer["findings"] if f["assertion"] in ("present", "possible"))
        more = answer.get("more_findings", 0)
        # A grounding spends 1 + (chars - 1) / 500 units of the per-client rate limit.
        units = 1 + (len(text) - 1) // 500
        print(f"{path}\t{len(text)}\t{found}{f' + {more}' if more else ''}\t{len(raw)}\t{units}")


def fresh(base, path, n):
    text = open(path, encoding="utf-8").read()
    row = []
    for _ in range(3):
        t0 = time.perf_counter()
        ground(base, path, text)
        row.append(f"{(time.perf_counter() - t0) * 1000:.1f}")
    print(f"| {n} | {' | '.join(row)} |")


if __name__ == "__main__":
    mode, base, *rest = sys.argv[1:]
    if mode == "table":
        table(base, rest)
    elif mode == "fresh":
        fresh(base, rest[0], rest[1])
    else:
        sys.exit(f"unknown mode {mode!r} (table or fresh)")
