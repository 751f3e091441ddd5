#!/usr/bin/env bash
# Creates or revokes an API key in the D1 database (local state by default).
#
#   scripts/key.sh create NAME [USER] [SCOPES]   -> prints the new key once
#   scripts/key.sh revoke KEY_ID
#
# REMOTE=1 targets the deployed database (wrangler d1 execute --remote) instead of the local
# state in .wrangler/state. Only the key's SHA-256 is stored; the key itself is printed once
# to this terminal and nowhere else.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"

STATE="${RADREF_STATE:-$ROOT/.wrangler/state}"
if [ "${REMOTE:-}" = 1 ]; then target=(--remote); else target=(--local --persist-to "$STATE"); fi
ALLOWED_SCOPES="context templates webhooks events:publish"

sql() {
    wrangler d1 execute DB "${target[@]}" --command "$1" </dev/null >/dev/null \
        || die "wrangler d1 execute failed (run 'make dev' once to create the local database)"
}

case "${1:-}" in
create)
    name="${2:-}"; user="${3:-default}"; scopes="${4:-context}"
    [ -n "$name" ] || die "usage: make key NAME=<label> [USER_ID=<user id>] [SCOPES=\"context templates\"]"
    [[ "$name" =~ ^[A-Za-z0-9\ ._-]{1,64}$ ]] || die "NAME: 1-64 letters, digits, spaces, . _ -"
    [[ "$user" =~ ^[a-z0-9_-]{1,64}$ ]] || die "USER_ID: 1-64 of a-z 0-9 _ -"
    for s in $scopes; do
        [[ " $ALLOWED_SCOPES " == *" $s "* ]] || die "unknown scope '$s'; allowed: $ALLOWED_SCOPES"
    done
    read -r id secret < <(python3 -c 'import secrets,string
a=string.ascii_lowercase+string.digits; b=string.ascii_letters+string.digits
print("".join(secrets.choice(a) for _ in range(10)), "".join(secrets.choice(b) for _ in range(40)))')
    key="rr_${id}_${secret}"
    hash=$(printf '%s' "$key" | sha256sum | cut -d' ' -f1)
    now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
    sql "INSERT OR IGNORE INTO users (id, name, created_at) VALUES ('$user', '$user', '$now'); INSERT INTO api_keys (id, user_id, name, key_hash, scopes, created_at) VALUES ('$id', '$user', '$name', '$hash', '$scopes', '$now');"
    echo "created key id $id for user '$user' with scopes: $scopes"
    echo "key (shown once, store it now): $key"
    ;;
revoke)
    id="${2:-}"
    [[ "$id" =~ ^[a-z0-9]{4,32}$ ]] || die "usage: make revoke-key ID=<key id> (the part between rr_ and the second _)"
    sql "UPDATE api_keys SET revoked_at = '$(date -u +%Y-%m-%dT%H:%M:%SZ)' WHERE id = '$id' AND revoked_at IS NULL;"
    echo "key $id revoked (if it existed and was active)"
    ;;
*)
    die "usage: scripts/key.sh create NAME [USER] [SCOPES] | revoke KEY_ID"
    ;;
esac
