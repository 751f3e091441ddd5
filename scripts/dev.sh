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

phase "dev: webhook secret sealing key (local only)"
# Webhook secrets are stored sealed under WEBHOOK_SECRET_KEY. Locally it is a random key kept
# beside the local database, so subscriptions made in one session still open in the next.
KEY_FILE="$STATE/webhook-secret-key"
if [ ! -s "$KEY_FILE" ]; then
    mkdir -p "$STATE"
    (umask 077 && python3 -c 'import secrets; print(secrets.token_hex(32))' >"$KEY_FILE")
    echo "created $KEY_FILE"
else
    echo "using $KEY_FILE"
fi
# The key reaches wrangler through a file (--env-file), never on its command line, which any
# user of the machine can read with `ps`. printf is a shell builtin, so no process is started
# with the key among its arguments either.
SECRETS_FILE="$STATE/secrets.env"
(umask 077 && printf 'WEBHOOK_SECRET_KEY=%s\n' "$(cat "$KEY_FILE")" >"$SECRETS_FILE")
chmod 600 "$KEY_FILE" "$SECRETS_FILE"
phase_done

phase "dev: wrangler dev on http://127.0.0.1:$PORT (Ctrl-C stops it)"
export WORKER_BUILD_ARGS="${WORKER_BUILD_ARGS:---release}"
# wrangler reads the assets directory before its first build fills it (scripts/worker-build.sh).
mkdir -p "$ROOT/build/assets"
# ALLOW_HTTP_LOOPBACK lets webhooks be sent to a receiver on http://127.0.0.1 while developing;
# the deployed configuration leaves it off (https only).
# A shorter webhook retry schedule for trying the retries by hand: WEBHOOK_RETRY_DELAYS=5,5,5,5.
EXTRA_VARS=()
if [ -n "${WEBHOOK_RETRY_DELAYS:-}" ]; then
    echo "webhook retry delays: $WEBHOOK_RETRY_DELAYS (seconds before attempts 2-5)"
    EXTRA_VARS+=(--var "WEBHOOK_RETRY_DELAYS:$WEBHOOK_RETRY_DELAYS")
fi
exec wrangler dev --ip 127.0.0.1 --port "$PORT" --persist-to "$STATE" \
    --show-interactive-dev-session=false --env-file "$SECRETS_FILE" \
    --var ENVIRONMENT:development --var ALLOW_HTTP_LOOPBACK:true \
    "${EXTRA_VARS[@]}" </dev/null
