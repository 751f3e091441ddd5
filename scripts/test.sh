#!/usr/bin/env bash
# `make test`: set up, check the core on the host, then run the integration tests over HTTP
# against a real `wrangler dev` (local D1 and Queues) on a free port, stopped whatever happens.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"

TOTAL_START=$(date +%s)
"$ROOT/scripts/setup.sh"

phase "test: host unit tests (cargo test --lib)"
cargo test --lib --locked || die "host unit tests (cargo test --lib)"
phase_done

phase "test: formatting (cargo fmt --check)"
cargo fmt --all -- --check || die "formatting: run 'cargo fmt'"
phase_done

phase "test: lints, host (cargo clippy --all-targets, warnings denied)"
cargo clippy --all-targets --locked -- -D warnings || die "clippy (host)"
phase_done

phase "test: lints, wasm32 (cargo clippy --target wasm32-unknown-unknown, warnings denied)"
cargo clippy --lib --target wasm32-unknown-unknown --locked -- -D warnings || die "clippy (wasm32)"
phase_done

phase "test: build the worker (worker-build --release --no-opt, system bodies in the corpus store)"
export WORKER_BUILD_ARGS="--release --no-opt"
# The integration tests run the worker with its system bodies in the corpus store (static
# assets read through the ASSETS binding), the placement a large corpus gets, so that path is
# exercised end to end; the host tests run the bundle placement the corpus gets today.
export RADREF_BODY_STORE=assets
# Packs of 256 KiB, so that today's corpus spreads over several (a deployed build over a
# large corpus packs 4 MiB each) and each request reads only the packs it meets.
export RADREF_PACK_BYTES=262144
sh scripts/worker-build.sh || die "worker build"
phase_done

phase "test: fresh local D1 state and migrations"
STATE=$(mktemp -d "${TMPDIR:-/tmp}/radref-test.XXXXXX")
LOG="$STATE/wrangler.log"
cleanup() {
    stop_worker
    rm -f "$ROOT/wrangler.test.toml"
    rm -rf "$STATE"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
wrangler d1 migrations apply DB --local --persist-to "$STATE" </dev/null >"$STATE/migrate.log" 2>&1 \
    || { cat "$STATE/migrate.log"; die "D1 migrations did not apply"; }
tail -n 3 "$STATE/migrate.log"
wrangler d1 execute DB --local --persist-to "$STATE" --file tests/fixtures/keys.sql </dev/null >"$STATE/keys.log" 2>&1 \
    || { cat "$STATE/keys.log"; die "loading the test keys failed"; }
echo "test keys loaded (tests/fixtures/keys.sql)"
phase_done

phase "test: start wrangler dev"
# Low limits so the 429 paths are testable (the tests give each client its own address).
# Webhooks: http to the tests' loopback receiver allowed, a 2-second retry schedule instead
# of 1 min / 5 min / 30 min / 2 h, and a throw-away sealing key. --test-scheduled exposes
# /__scheduled, which runs the daily retention sweep on request. The key goes through a file
# (--env-file) in the run's private state directory, never on a command line `ps` shows.
(umask 077 && python3 -c 'import secrets; print("WEBHOOK_SECRET_KEY=" + secrets.token_hex(32))' \
    >"$STATE/secrets.env")
# The location's shared limiters (wrangler.toml's [[ratelimits]]) with limits no test reaches:
# the integration tests exercise the isolate's counters, set low here; every request still goes
# through the binding. tests/ratelimit/shared.py runs its own worker with low shared limits.
sed -E 's/^simple = \{ limit = [0-9]+, period = ([0-9]+) \}$/simple = { limit = 1000000, period = \1 }/' \
    wrangler.toml >wrangler.test.toml
start_worker "$STATE" --config wrangler.test.toml --test-scheduled --env-file "$STATE/secrets.env" --var ENVIRONMENT:test \
    --var CORPUS_RATE_LIMIT:40 --var CORPUS_RATE_WINDOW:600 \
    --var KEY_RATE_LIMIT:1500 --var KEY_RATE_WINDOW:600 \
    --var AUTH_FAILURE_LIMIT:20 --var AUTH_FAILURE_WINDOW:600 \
    --var ALLOW_HTTP_LOOPBACK:true --var WEBHOOK_RETRY_DELAYS:2,2,2,2
phase_done

phase "test: integration tests over HTTP (cargo test --test integration)"
RADREF_BASE_URL="$BASE_URL" cargo test --test integration --locked \
    || { echo "--- wrangler dev log (last 60 lines) ---"; tail -n 60 "$LOG"; die "integration tests"; }
phase_done

phase "test: OpenAPI 3.1 document validated (openapi-spec-validator)"
curl -fsS -m 10 "$BASE_URL/api/v1/openapi" -o "$STATE/openapi.json" || die "GET /api/v1/openapi"
"$PY_VENV/bin/openapi-spec-validator" --schema 3.1 "$STATE/openapi.json" || die "OpenAPI validation"
phase_done

phase "test: contract run against the live worker (schemathesis, all checks)"
# Checks are configured in tests/contract/schemathesis.toml. The key (tests/fixtures/keys.sql)
# has every scope.
(cd tests/contract && SCHEMATHESIS_HOOKS=hooks "$PY_VENV/bin/schemathesis" --no-color run \
    "$BASE_URL/api/v1/openapi" --url "$BASE_URL" --max-examples 50 --seed 20261122 --workers 1 \
    -H "Authorization: Bearer rr_contract_contractTestsKeyAllScopes0001") \
    || die "contract tests (schemathesis)"
phase_done

phase "test: webhook event catalog and payloads against their JSON Schemas (python-jsonschema)"
"$PY_VENV/bin/python" tests/contract/check_events.py "$BASE_URL" || die "event catalog check"
phase_done

phase "test: MRRT export and import read by html5lib and the XML parser (tests/contract/check_mrrt.py)"
"$PY_VENV/bin/python" tests/contract/check_mrrt.py "$BASE_URL" || die "MRRT check"
phase_done

phase "test: MCP endpoint with the official TypeScript SDK client"
node tests/mcp/client.mjs "$BASE_URL" || die "MCP client test"
phase_done

phase "test: FHIR R4 output against the HL7 FHIR R4 JSON Schema (tests/fhir/validate.mjs)"
node tests/fhir/validate.mjs "$BASE_URL" || die "FHIR validation"
phase_done

phase "test: the web page in headless Chromium (playwright-core, tests/e2e)"
# Each test file gives its corpus requests their own client address, so the low corpus limit
# above does not interfere. sanitize-parity keeps the editor's preview sanitiser and the
# service's in step; accessibility audits every screen with axe-core.
SCREENSHOT_DIR="$ROOT/target/e2e-screenshots"
rm -rf "$SCREENSHOT_DIR" && mkdir -p "$SCREENSHOT_DIR"
BASE_URL="$BASE_URL" SCREENSHOT_DIR="$SCREENSHOT_DIR" node --test --test-concurrency=1 --test-reporter=spec --disable-warning=MODULE_TYPELESS_PACKAGE_JSON \
    tests/e2e/explorer.test.mjs tests/e2e/calculator.test.mjs tests/e2e/grounding.test.mjs tests/e2e/templates.test.mjs \
    tests/e2e/webhooks.test.mjs tests/e2e/sanitize-parity.test.mjs tests/e2e/accessibility.test.mjs \
    || { echo "--- wrangler dev log (last 60 lines) ---"; tail -n 60 "$LOG"; die "browser tests (tests/e2e)"; }
echo "screenshots: $SCREENSHOT_DIR ($(ls "$SCREENSHOT_DIR" | wc -l) files)"
phase_done

phase "test: RSS feed read by a standard parser (feedparser)"
"$PY_VENV/bin/python" tests/contract/check_feed.py "$BASE_URL" || die "RSS feed check"
phase_done

phase "test: the location's shared rate limiters refuse past their limit (tests/ratelimit/shared.py)"
stop_worker
python3 tests/ratelimit/shared.py "$STATE" \
    || { echo "--- wrangler dev log (last 60 lines) ---"; tail -n 60 "$STATE/shared-wrangler.log"; die "shared rate limit test"; }
phase_done

phase "test: webhook deliveries survive a killed worker (tests/restart/recovery.py)"
# The worker above is stopped first: this test runs its own on the same local state, kills it
# with SIGKILL while deliveries are between retries, mid-POST and queued, and restarts it.
stop_worker
python3 tests/restart/recovery.py "$STATE" -- --var ENVIRONMENT:test \
    --var ALLOW_HTTP_LOOPBACK:true --var WEBHOOK_RETRY_DELAYS:10,10,10,10 \
    --env-file "$STATE/secrets.env" \
    || { echo "--- wrangler dev log (last 60 lines) ---"; tail -n 60 "$STATE/recovery-wrangler.log"; die "restart recovery test"; }
phase_done

printf '\nall checks passed in %ss\n' "$(($(date +%s) - TOTAL_START))"
