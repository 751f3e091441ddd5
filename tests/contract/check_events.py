"""The webhook event catalog against a JSON Schema validator that is not ours (python-jsonschema).

Reads GET /api/v1/webhooks/event-types from the running worker, checks that each type's schema
is a valid JSON Schema 2020-12 and that its example validates, publishes an event of each type
with that example's data, and validates the envelope the service stored and delivers (the
publish answer is that envelope). A report.finalized without has_critical_finding is refused by
the service (422) and invalid by the schema alike.

Usage: python tests/contract/check_events.py BASE_URL
"""

import json
import sys
import urllib.error
import urllib.request

from jsonschema import Draft202012Validator, FormatChecker

BASE = sys.argv[1]
KEY = "rr_whsc0014_webhookScenarioKeyNumber0014"


def call(method, path, body=None, key=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(BASE + path, data=data, method=method)
    request.add_header("cf-connecting-ip", "198.51.100.150")
    if data is not None:
        request.add_header("content-type", "application/json")
    if key:
        request.add_header("authorization", f"Bearer {key}")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


status, catalog = call("GET", "/api/v1/webhooks/event-types")
assert status == 200, (status, catalog)
types = [entry["type"] for entry in catalog["data"]]
assert len(types) == catalog["meta"]["total"] >= 6, types
checked = 0
for entry in catalog["data"]:
    Draft202012Validator.check_schema(entry["schema"])
    validator = Draft202012Validator(entry["schema"], format_checker=FormatChecker())
    validator.validate(entry["example"])
    status, published = call("POST", "/api/v1/events", {"type": entry["type"], "data": entry["example"]["data"]}, KEY)
    assert status == 202, (entry["type"], status, published)
    validator.validate(published["data"])
    checked += 1

finalized = next(e for e in catalog["data"] if e["type"] == "report.finalized")
bad = dict(finalized["example"]["data"])
del bad["has_critical_finding"]
status, refused = call("POST", "/api/v1/events", {"type": "report.finalized", "data": bad}, KEY)
assert status == 422, (status, refused)
assert "has_critical_finding" in json.dumps(refused), refused
errors = list(Draft202012Validator(finalized["schema"]).iter_errors({**finalized["example"], "data": bad}))
assert errors, "the schema refuses what the service refuses"
print(f"events ok: {checked} event types, their examples and published envelopes valid against their JSON Schemas")
