#!/usr/bin/env bash
# `make bench`: host microbenchmarks of the corpus routes, then radref's release build against
# the JavaScript Worker a user would write instead (MiniSearch, benches/minisearch), both in one
# plain `workerd` process with no proxy, under the same wrk load; then isolate memory and cold
# start, each service alone; then the old figures behind `wrangler dev` as a secondary row.
# Prints markdown tables. Not part of `make test`: nothing here asserts a time.
#
# BENCH_DURATION (default 10s) is the length of each wrk run; BENCH_SKIP_WRANGLER=1 leaves out
# the wrangler dev rows, BENCH_SKIP_HOST=1 the host microbenchmarks, BENCH_SKIP_MEMORY=1 cold
# start and memory; BENCH_NO_BUILD=1 reuses build/ as it is.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"

DURATION="${BENCH_DURATION:-10s}"
# Requests of the memory run (mixed routes), per service.
MEMORY_REQUESTS="${BENCH_MEMORY_REQUESTS:-100000}"
OUT="$ROOT/build/bench"
WORKERD="$ROOT/node_modules/@cloudflare/workerd-linux-64/bin/workerd"
COMPAT_DATE=$(awk -F'"' '/^compatibility_date/ {print $2}' wrangler.toml)

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
[ -x "$WORKERD" ] || die "no workerd binary at $WORKERD (it comes with wrangler: run make setup)"

if [ -z "${BENCH_SKIP_HOST:-}" ]; then
    phase "bench: host microbenchmarks (cargo bench --bench corpus)"
    cargo bench --bench corpus --locked 2>/dev/null | sed -n '/systems;/,$p' || die "cargo bench"
    phase_done
fi

if [ -z "${BENCH_NO_BUILD:-}" ]; then
    phase "bench: release build with wasm-opt, as deployed"
    export WORKER_BUILD_ARGS="--release"
    sh scripts/worker-build.sh >/dev/null 2>&1 || die "worker build"
    phase_done
fi
WASM_RAW=$(stat -c %s build/index_bg.wasm)
BUNDLE_GZ=$(( $(gzip -9c build/index_bg.wasm | wc -c) + $(cat build/index.js src/platform/entry.js | gzip -9c | wc -c) ))
echo "bundle: wasm $WASM_RAW bytes raw; wasm + JS modules $BUNDLE_GZ bytes gzipped"

phase "bench: the competitor and the query mix, from the compiled corpus"
# The competitor's documents and the query mix are exported from the same compiled corpus the
# worker carries (never a hand copy); the mix is drawn with a fixed seed.
cargo run --quiet --release --locked --features tools --bin bench-export -- "$OUT" \
    || die "bench-export"
mini="$ROOT/benches/minisearch"
stamp="$mini/node_modules/.radref-lock.sha256"
want=$(sha256sum "$mini/package-lock.json" | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    echo "benches/minisearch/node_modules matches its package-lock.json: skipping npm ci"
else
    (cd "$mini" && PATH="$SYSTEM_PATH" npm ci --no-audit --no-fund --loglevel=error) \
        || die "npm ci in benches/minisearch"
    echo "$want" > "$stamp"
fi
# Every route of the memory run: the query mix, every detail, and health.
{
    sed 's|^|/api/v1/search?q=|' "$OUT/queries.txt"
    sed 's|^|/api/v1/systems/|' "$OUT/slugs.txt"
    echo /api/v1/health
} > "$OUT/mixed-radref.txt"
{
    sed 's|^|/api/v1/search?q=|' "$OUT/queries.txt"
    echo /api/v1/health
} > "$OUT/mixed-minisearch.txt"
phase_done

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Writes a workerd config serving radref on $2, the competitor on $3 and the floor on $4 (0 or
# nothing leaves one out).
config() {
    local out="$1" rp="$2" mp="$3" fp="${4:-0}" rs="" rk="" ms="" mk="" fs="" fk=""
    if [ "$rp" != 0 ]; then
        rs='(name = "radref", worker = .radref),'
        rk="(name = \"radref-http\", address = \"127.0.0.1:$rp\", http = (), service = \"radref\"),"
    fi
    if [ "$mp" != 0 ]; then
        ms='(name = "minisearch", worker = .minisearch),'
        mk="(name = \"minisearch-http\", address = \"127.0.0.1:$mp\", http = (), service = \"minisearch\"),"
    fi
    if [ "$fp" != 0 ]; then
        fs='(name = "floor", worker = .floor),'
        fk="(name = \"floor-http\", address = \"127.0.0.1:$fp\", http = (), service = \"floor\"),"
    fi
    # Paths are relative to the config, which lives in build/bench.
    sed -e "s|@RADREF_SERVICE@|$rs|" -e "s|@MINI_SERVICE@|$ms|" -e "s|@FLOOR_SERVICE@|$fs|" \
        -e "s|@RADREF_SOCKET@|$rk|" -e "s|@MINI_SOCKET@|$mk|" -e "s|@FLOOR_SOCKET@|$fk|" \
        -e "s|@BUILD@|..|g" -e "s|@ROOT@|../..|g" -e "s|@MINI@|../../benches/minisearch|g" \
        -e "s|@COMPAT_DATE@|$COMPAT_DATE|g" benches/workerd/bench.capnp.in > "$out"
}

WORKERD_PID=""
# Starts workerd on a config in its own process group; logs to build/bench/<name>.log.
start_workerd() {
    local name="$1"
    (cd "$OUT" && exec setsid "$WORKERD" serve "$name.capnp" </dev/null >"$name.log" 2>&1) &
    WORKERD_PID=$!
}
stop_workerd() {
    if [ -n "$WORKERD_PID" ] && kill -0 "$WORKERD_PID" 2>/dev/null; then
        kill -TERM -- "-$WORKERD_PID" 2>/dev/null || kill -TERM "$WORKERD_PID" 2>/dev/null || true
        wait "$WORKERD_PID" 2>/dev/null || true
    fi
    WORKERD_PID=""
}
wait_health() {
    for _ in $(seq 1 300); do
        curl -fsS -m 2 "$1/api/v1/health" >/dev/null 2>&1 && return 0
        kill -0 "$WORKERD_PID" 2>/dev/null || break
        sleep 0.1
    done
    cat "$OUT"/*.log >&2
    die "workerd did not answer on $1"
}
trap 'stop_workerd; stop_worker' EXIT
trap 'exit 130' INT TERM

# One wrk run: load CONNS URL [LUA_SCRIPT ARGS...]; sets RPS, P50, P99 (microseconds) and
# ERRORS.
load() {
    local conns="$1" url="$2"; shift 2
    local out script=()
    if [ $# -gt 0 ]; then
        script=(-s "$1" "$url" --); shift
    else
        script=("$url")
    fi
    out=$(wrk -t1 -c"$conns" -d"$DURATION" --latency "${script[@]}" "$@")
    RPS=$(awk '/Requests\/sec/ {printf "%.0f", $2}' <<<"$out")
    P50=$(awk '$1 == "50%" {print $2}' <<<"$out" | to_us)
    P99=$(awk '$1 == "99%" {print $2}' <<<"$out" | to_us)
    ERRORS=$(awk '/Non-2xx|Socket errors/ {print}' <<<"$out")
}
# wrk prints 512.00us, 1.20ms or 1.02s; the table says microseconds.
to_us() {
    awk '{ v = $1 + 0; if ($1 ~ /ms$/) v *= 1000; else if ($1 ~ /[0-9]s$/) v *= 1000000;
           printf "%.0f", v }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f×", a / b }'; }

phase "bench: radref against JS + MiniSearch, one workerd process (wrk -t1, $DURATION per row)"
RP=$(free_port)
MP=$(free_port)
FP=$(free_port)
config "$OUT/both.capnp" "$RP" "$MP" "$FP"
start_workerd both
R="http://127.0.0.1:$RP"
M="http://127.0.0.1:$MP"
F="http://127.0.0.1:$FP"
wait_health "$R"
wait_health "$M"
wait_health "$F"
echo "$(wc -l <"$OUT/queries.txt") distinct queries in the mix; radref on $R, MiniSearch on $M"
# Warm-up: both isolates see the whole mix once before anything is timed.
wrk -t1 -c8 -d3s -s benches/mix.lua "$R" -- "$OUT/mixed-radref.txt" "" >/dev/null
wrk -t1 -c8 -d3s -s benches/mix.lua "$M" -- "$OUT/mixed-minisearch.txt" "" >/dev/null
SEARCH=(benches/mix.lua "$OUT/queries.txt" "/api/v1/search?q=")
DETAIL=(benches/mix.lua "$OUT/slugs.txt" "/api/v1/systems/")
printf '\n| route | conns | radref req/s | p50 µs | p99 µs | MiniSearch req/s | p50 µs | p99 µs | ratio |\n'
printf '|---|---:|---:|---:|---:|---:|---:|---:|---:|\n'
for conns in 1 8; do
    load "$conns" "$M/api/v1/health"; m_h=("$RPS" "$P50" "$P99")
    load "$conns" "$R/api/v1/health"; r_h=("$RPS" "$P50" "$P99")
    printf '| health | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$conns" "${r_h[@]}" "${m_h[@]}" \
        "$(ratio "${r_h[0]}" "${m_h[0]}")"
    load "$conns" "$M" "${SEARCH[@]}"; m_s=("$RPS" "$P50" "$P99"); m_err="$ERRORS"
    load "$conns" "$R" "${SEARCH[@]}"; r_s=("$RPS" "$P50" "$P99"); r_err="$ERRORS"
    printf '| search, query mix | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$conns" "${r_s[@]}" \
        "${m_s[@]}" "$(ratio "${r_s[0]}" "${m_s[0]}")"
    load "$conns" "$R" "${DETAIL[@]}"; r_d=("$RPS" "$P50" "$P99")
    printf '| systems/{slug} vs its search | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$conns" \
        "${r_d[@]}" "${m_s[@]}" "$(ratio "${r_d[0]}" "${m_s[0]}")"
    [ -z "$r_err$m_err" ] || echo "errors: radref: ${r_err:-none}; MiniSearch: ${m_err:-none}"
    load "$conns" "$F/api/v1/health"; f_h=("$RPS" "$P50" "$P99")
    printf '| floor: constant answer, vs radref health | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
        "$conns" "${f_h[@]}" "${r_h[@]}" "$(ratio "${r_h[0]}" "${f_h[0]}")"
    if [ "$conns" = 1 ]; then
        over() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f×", a / b }'; }
        TAILS="radref search $(over "${r_s[2]}" "${r_s[1]}"), MiniSearch search $(over "${m_s[2]}" "${m_s[1]}"), floor $(over "${f_h[2]}" "${f_h[1]}")"
    fi
done
echo
echo "p99 over p50 at 1 connection: $TAILS"
echo "bundle (wasm + JS modules, gzip -9): $BUNDLE_GZ bytes"
# Answer quality on the same mix: is the first hit of the system the query was drawn from?
python3 - "$OUT/expected.tsv" "$R" "$M" <<'PY'
import json, sys, urllib.request
expected, bases = sys.argv[1], sys.argv[2:]
rows = [line.rstrip("\n").split("\t") for line in open(expected) if line.strip()]
right = []
for base in bases:
    n = 0
    for q, slug in rows:
        with urllib.request.urlopen(f"{base}/api/v1/search?q={q}&limit=1") as r:
            data = json.load(r)["data"]
        n += bool(data) and data[0]["slug"] == slug
    right.append(n)
print(f"first hit in the query's own system: radref {right[0]}/{len(rows)}, "
      f"MiniSearch {right[1]}/{len(rows)}")
PY
stop_workerd
phase_done

if [ -z "${BENCH_SKIP_MEMORY:-}" ]; then
phase "bench: cold start and memory, each service alone in its own workerd process"
# A fresh process per service: time from spawning workerd to the first answer, the latency of
# that first request, then $MEMORY_REQUESTS mixed requests (search mix, every detail, health)
# and the process's resident memory and radref's wasm memory before and after.
mem_row() {
    local name="$1" rp="$2" mp="$3" url="$4" mix="$5" start first_ms ready_ms rss0 rss1 wasm0 wasm1 done=0
    config "$OUT/$name.capnp" "$rp" "$mp"
    start=$(date +%s%N)
    start_workerd "$name"
    first_ms=""
    for _ in $(seq 1 3000); do
        if t=$(curl -fsS -m 5 -o /dev/null -w '%{time_total}' "$url/api/v1/health" 2>/dev/null); then
            first_ms=$(awk -v t="$t" 'BEGIN { printf "%.1f", t * 1000 }')
            break
        fi
        sleep 0.005
    done
    ready_ms=$(( ($(date +%s%N) - start) / 1000000 ))
    [ -n "$first_ms" ] || die "$name did not answer"
    wrk -t1 -c8 -d2s -s benches/mix.lua "$url" -- "$mix" "" >/dev/null
    rss0=$(awk '/VmRSS/ {print $2}' "/proc/$WORKERD_PID/status")
    wasm0=$(curl -fsS "$url/api/v1/health" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("memory", {}).get("wasm_bytes", "-"))')
    while [ "$done" -lt "$MEMORY_REQUESTS" ]; do
        n=$(wrk -t1 -c8 -d5s -s benches/mix.lua "$url" -- "$mix" "" | awk '/requests in/ {print $1}')
        done=$((done + n))
    done
    rss1=$(awk '/VmRSS/ {print $2}' "/proc/$WORKERD_PID/status")
    wasm1=$(curl -fsS "$url/api/v1/health" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("memory", {}).get("wasm_bytes", "-"))')
    stop_workerd
    printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$ready_ms" "$first_ms" "$done" \
        "$((rss0 / 1024))" "$((rss1 / 1024))" "$wasm0" "$wasm1"
}
printf '\n| service | start to first answer ms | first request ms | requests | RSS after warm-up MiB | RSS after MiB | wasm bytes after warm-up | wasm bytes after |\n'
printf '|---|---:|---:|---:|---:|---:|---:|---:|\n'
P=$(free_port)
mem_row radref "$P" 0 "http://127.0.0.1:$P" "$OUT/mixed-radref.txt"
P=$(free_port)
mem_row minisearch 0 "$P" "http://127.0.0.1:$P" "$OUT/mixed-minisearch.txt"
phase_done
fi

if [ -z "${BENCH_SKIP_WRANGLER:-}" ]; then
    phase "bench: secondary, behind wrangler dev's proxy (wrk -t2 -c16 -d$DURATION)"
    STATE=$(mktemp -d "${TMPDIR:-/tmp}/radref-bench.XXXXXX")
    trap 'stop_workerd; stop_worker; rm -rf "$STATE"' EXIT
    # The rate limit is raised so the benchmark measures the routes, not 429s.
    start_worker "$STATE" --var ENVIRONMENT:bench --var CORPUS_RATE_LIMIT:1000000
    printf '| route | requests/s | p50 µs | p99 µs |\n|---|---:|---:|---:|\n'
    for row in "GET /api/v1/health|$BASE_URL/api/v1/health" \
        "GET /api/v1/systems/fleischner-2017|$BASE_URL/api/v1/systems/fleischner-2017"; do
        wrk_out=$(wrk -t2 -c16 -d"$DURATION" --latency "${row#*|}")
        printf '| %s | %s | %s | %s |\n' "${row%%|*}" \
            "$(awk '/Requests\/sec/ {printf "%.0f", $2}' <<<"$wrk_out")" \
            "$(awk '$1 == "50%" {print $2}' <<<"$wrk_out" | to_us)" \
            "$(awk '$1 == "99%" {print $2}' <<<"$wrk_out" | to_us)"
    done
    load 16 "$BASE_URL" "${SEARCH[@]}"
    printf '| GET /api/v1/search?q= (query mix) | %s | %s | %s |\n' "$RPS" "$P50" "$P99"
    phase_done
fi
