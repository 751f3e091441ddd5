#!/usr/bin/env bash
# `make simulate [TYPE=<event type>|all] [KEY=<key>] [BASE_URL=<url>]`: publishes sample events
# to a running service (default: `make dev` on 127.0.0.1:8787 with the development key of Dev
# Alice), as a reporting system would, and prints what the service answered.
set -euo pipefail

BASE_URL="${BASE_URL:-http://127.0.0.1:8787}"
KEY="${KEY:-rr_devalice_radrefDevAliceKeyNotSecret01}"
TYPE="${TYPE:-all}"
STAMP=$(date +%s)

sample() {
    case "$1" in
        report.created) echo '{"report_id":"rep_sim_'"$STAMP"'","exam_type":"CT chest","status":"draft"}' ;;
        report.finalized) echo '{"report_id":"rep_sim_'"$STAMP"'","exam_type":"CT chest","status":"final","has_critical_finding":false}' ;;
        report.sent) echo '{"report_id":"rep_sim_'"$STAMP"'","exam_type":"CT chest","status":"final","destination":"pacs"}' ;;
        report.updated) echo '{"report_id":"rep_sim_'"$STAMP"'","exam_type":"CT chest","status":"final"}' ;;
        critical_finding.detected) echo '{"report_id":"rep_sim_'"$STAMP"'","exam_type":"CT chest","finding":"Simulated critical finding"}' ;;
        connection.status_changed) echo '{"connection_id":"pacs-main","status":"disconnected","previous_status":"connected"}' ;;
        *) echo "unknown event type '$1'; use one of: report.created report.finalized report.sent report.updated critical_finding.detected connection.status_changed, or all" >&2; exit 2 ;;
    esac
}

if [ "$TYPE" = all ]; then
    TYPES="report.created report.finalized report.sent report.updated critical_finding.detected connection.status_changed"
else
    TYPES="$TYPE"
fi

# The key goes to curl in a private file (-H @file), not among its arguments, which `ps`
# shows to every user of the machine.
HEADERS=$(mktemp "${TMPDIR:-/tmp}/radref-simulate-headers.XXXXXX")
trap 'rm -f "$HEADERS"' EXIT
printf 'Authorization: Bearer %s\nContent-Type: application/json\n' "$KEY" >"$HEADERS"

failed=0
for type in $TYPES; do
    data=$(sample "$type")
    printf '==> publishing %s to %s/api/v1/events\n' "$type" "$BASE_URL"
    status=$(curl -sS -m 15 -o /tmp/radref-simulate.$$ -w '%{http_code}' \
        -H @"$HEADERS" \
        --data "{\"type\":\"$type\",\"data\":$data}" "$BASE_URL/api/v1/events") \
        || { echo "    could not reach $BASE_URL (is 'make dev' running?)"; exit 1; }
    printf '    HTTP %s: %s\n' "$status" "$(cat /tmp/radref-simulate.$$)"
    rm -f /tmp/radref-simulate.$$
    [ "$status" = 202 ] || failed=1
done
exit $failed
