#!/usr/bin/env bash
# `make dev`: set up, migrate the local D1 database, and serve the worker on 127.0.0.1:8787.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"

PORT="${PORT:-8787}"
STATE="${RADREF_STATE:-$ROOT/.wrangler/state}"

"$ROOT/scripts/setup.sh"

phase "dev: apply D1 migrations (local, $STATE)"
wrangler d1 migrations apply DB --local --persist-to "$STATE" </dev/null \
    || die "D1 migrations did not apply"
phase_done

phase "dev: seed the documented development users and keys (local only)"
wrangler d1 execute DB --local --persist-to "$STATE" --file scripts/dev-seed.sql </dev/null >/dev/null \
    || die "seeding development keys failed"
echo "development keys (see README): rr_devalice_radrefDevAliceKeyNotSecret01, rr_devbob01_radrefDevBobKeyNotSecret0001"
phase_done

phase "dev: wrangler dev on http://127.0.0.1:$PORT (Ctrl-C stops it)"
export WORKER_BUILD_ARGS="${WORKER_BUILD_ARGS:---release}"
exec wrangler dev --ip 127.0.0.1 --port "$PORT" --persist-to "$STATE" \
    --show-interactive-dev-session=false \
    --var ENVIRONMENT:development </dev/null
