#!/usr/bin/env bash
# `make bench`: host microbenchmarks of the corpus routes, then HTTP throughput and latency of
# a release build under `wrangler dev` (wrk), for a trivial route and the corpus routes in one
# run so their ratios hold. Prints markdown tables. Not part of `make test`.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"

DURATION="${BENCH_DURATION:-10s}"
CONNECTIONS="${BENCH_CONNECTIONS:-16}"

"$ROOT/scripts/setup.sh"

if ! command -v wrk >/dev/null; then
    phase "bench: install wrk (Debian package)"
    if [ "$(id -u)" = 0 ]; then
        apt-get install -y wrk >/dev/null || die "apt-get install wrk"
    else
        die "wrk is not installed: run 'sudo apt-get install wrk'"
    fi
    phase_done
fi

phase "bench: host microbenchmarks (cargo bench --bench corpus)"
cargo bench --bench corpus --locked 2>/dev/null | sed -n '/systems;/,$p' || die "cargo bench"
phase_done

phase "bench: release build with wasm-opt, as deployed"
export WORKER_BUILD_ARGS="--release"
sh scripts/worker-build.sh >/dev/null 2>&1 || die "worker build"
echo "wasm: $(stat -c %s build/index_bg.wasm) bytes raw, $(gzip -9c build/index_bg.wasm | wc -c) bytes gzipped"
phase_done

phase "bench: start wrangler dev"
STATE=$(mktemp -d "${TMPDIR:-/tmp}/radref-bench.XXXXXX")
cleanup() {
    stop_worker
    rm -rf "$STATE"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# The rate limit is raised so the benchmark measures the routes, not 429s.
start_worker "$STATE" --var ENVIRONMENT:bench --var CORPUS_RATE_LIMIT:1000000
BASE="$BASE_URL"
phase_done

phase "bench: HTTP (wrk -t2 -c$CONNECTIONS -d$DURATION, one run, same worker)"
printf '| route | requests/s | p50 latency | p99 latency | vs trivial |\n|---|---:|---:|---:|---:|\n'
TRIVIAL=""
run() {
    local name="$1"; shift
    local out rps p50 p99
    out=$(wrk -t2 -c"$CONNECTIONS" -d"$DURATION" --latency "$@")
    rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
    p50=$(awk '$1 == "50%" {print $2}' <<<"$out")
    p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
    [ -n "$TRIVIAL" ] || TRIVIAL="$rps"
    printf '| %s | %s | %s | %s | %s%% |\n' "$name" "$rps" "$p50" "$p99" \
        "$(awk -v a="$rps" -v b="$TRIVIAL" 'BEGIN { printf "%.0f", 100 * a / b }')"
}
run "GET /api/v1/health (trivial)" "$BASE/api/v1/health"
run "GET /api/v1/systems/fleischner-2017" "$BASE/api/v1/systems/fleischner-2017"
run "GET /api/v1/systems?organ=lung" "$BASE/api/v1/systems?organ=lung"
run "GET /api/v1/search?q= (query mix)" -s benches/search.lua "$BASE"
phase_done
