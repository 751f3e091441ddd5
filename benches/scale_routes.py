#!/usr/bin/env python3
"""Checks that every open corpus route of a running radref answers right over a given corpus.

    scale_routes.py BASE_URL CORPUS_DIR

Used by `make bench-scale` at each corpus size: the list holds every system of CORPUS_DIR, each
system's detail is its own, each system's decision units give the expected answer of their first
example, a system's short name finds it first, a superseded system's diff answers, and the
organs, coverage, changes (JSON and RSS), OpenAPI, llms.txt and MCP (tools/list, search and
grounding) routes answer. Prints one line per check and exits non-zero at the first failure.
"""
import json
import os
import sys
import urllib.parse
import urllib.request

BASE, CORPUS = sys.argv[1], sys.argv[2]


def get(path, want=200):
    with urllib.request.urlopen(BASE + path) as r:
        if r.status != want:
            sys.exit(f"GET {path}: {r.status}")
        return r.read()


def post(path, body):
    request = urllib.request.Request(BASE + path, data=json.dumps(body).encode(), headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
    with urllib.request.urlopen(request) as r:
        return json.load(r)


def fail(message):
    sys.exit(f"FAILED: {message}")


def matches(unit, expect):
    """An evaluated unit gives what an example expects (the build's own check, over HTTP)."""
    if "needs" in expect and "outcome" not in expect and "result" not in expect:
        return unit["status"] == "needs_inputs"
    return (unit["status"] == "decided"
            and expect.get("outcome") in (None, (unit.get("outcome") or {}).get("code"))
            and expect.get("result") in (None, unit.get("result")))


slugs = [s.strip() for s in open(os.path.join(CORPUS, "slugs.txt"))
         if s.strip() and not s.startswith("#")]
systems = {s: json.load(open(os.path.join(CORPUS, "systems", f"{s}.json"))) for s in slugs}

listed = [item["slug"] for item in json.loads(get("/api/v1/systems"))["data"]]
if sorted(listed) != sorted(slugs):
    fail(f"the list holds {len(listed)} systems, the corpus {len(slugs)}")
print(f"list: {len(listed)} systems")

evaluated = 0
for slug, source in systems.items():
    detail = json.loads(get(f"/api/v1/systems/{slug}"))
    if detail.get("slug") != slug:
        fail(f"detail of {slug} is {detail.get('slug')}")
    for unit in source.get("decision_units", []):
        example = unit["examples"][0]
        answer = post(f"/api/v1/systems/{slug}/evaluate",
                      {"inputs": example["inputs"], "units": [unit["id"]]})
        got = next((u for u in answer["units"] if u["id"] == unit["id"]), None)
        if got is None or not matches(got, example["expect"]):
            fail(f"{slug} unit {unit['id']}: expected {example['expect']}, got {got}")
        evaluated += 1
print(f"details: {len(systems)}; evaluations of a unit's first example: {evaluated}")

found = 0
sample = slugs[::max(1, len(slugs) // 50)]
for slug in sample:
    q = urllib.parse.quote(systems[slug]["short_name"])
    hits = json.loads(get(f"/api/v1/search?q={q}&limit=5"))["data"]
    found += any(h["slug"] == slug for h in hits)
if found < len(sample) * 0.9:
    fail(f"a system's short name found it in the first five for {found}/{len(sample)}")
print(f"search: short name in the first five hits for {found}/{len(sample)}")

pairs = [(s, x) for s in slugs for x in systems[s]["currency"].get("superseded_by", [])]
for old, new in pairs[:20]:
    get(f"/api/v1/systems/{old}/diff/{new}")
print(f"diffs: {min(len(pairs), 20)} of {len(pairs)} version pairs")

for path in ["/api/v1/health", "/api/v1/organs", "/api/v1/coverage", "/api/v1/changes?limit=500",
             "/feed/changes.xml", "/api/v1/openapi", "/llms.txt"]:
    get(path)
print("organs, coverage, changes, RSS, OpenAPI, llms.txt: 200")

tools = post("/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})["result"]["tools"]
names = {t["name"] for t in tools}
for name, args in [("radref_search", {"query": "bosniak"}),
                   ("radref_ground", {"text": "Findings: 6 mm solid pulmonary nodule in the "
                                              "right upper lobe. Impression: pulmonary nodule."})]:
    if name not in names:
        fail(f"MCP has no tool {name}")
    result = post("/mcp", {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                           "params": {"name": name, "arguments": args}})["result"]
    if result.get("isError"):
        fail(f"MCP {name}: {result}")
print(f"MCP: {len(tools)} tools; radref_search and radref_ground answer")
print("every corpus route answered")
