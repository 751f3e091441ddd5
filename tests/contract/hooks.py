"""Schemathesis hooks for radref's contract run (loaded through SCHEMATHESIS_HOOKS).

Every generated request comes from its own client address, so the low per-IP rate limit that
`make test` configures (to exercise 429) does not turn the contract run into a wall of 429s.
"""
import itertools

import schemathesis

_addresses = itertools.count(1)


@schemathesis.hook
def before_call(context, case, kwargs):
    n = next(_addresses)
    case.headers = {**(case.headers or {}), "CF-Connecting-IP": f"100.64.{(n >> 8) & 0xFF}.{n & 0xFF}"}
