#!/usr/bin/env bash
# `make bench`: host microbenchmarks of the corpus routes, then radref's release build against
# the JavaScript Workers a user would write instead (MiniSearch, benches/minisearch, and
# FlexSearch, benches/flexsearch), all in one plain `workerd` process with no proxy, under the same wrk load; then, in that same process,
# grounded context over whole pasted reports (benches/reports, about 200 to 20,000
# characters); then isolate memory and cold start, each service alone, and the longest report's
# first grounding in a fresh process; then the old figures
# behind `wrangler dev` as a secondary row. Prints markdown tables. Not part of `make test`:
# nothing here asserts a time.
#
# BENCH_DURATION (default 10s) is the length of each wrk run; BENCH_SKIP_WRANGLER=1 leaves out
# the wrangler dev rows, BENCH_SKIP_HOST=1 the host microbenchmarks, BENCH_SKIP_CONTEXT=1 the
# grounding of whole reports (its host table and its workerd rows), BENCH_SKIP_MEMORY=1 cold
# start, memory and the first grounding; BENCH_NO_BUILD=1 reuses build/ as it is.
set -euo pipefail
source "$(dirname "$0")/env.sh"
source "$(dirname "$0")/bench-lib.sh"
cd "$ROOT"

DURATION="${BENCH_DURATION:-10s}"
# Requests of the memory run (mixed routes), per service.
MEMORY_REQUESTS="${BENCH_MEMORY_REQUESTS:-100000}"
OUT="$ROOT/build/bench"

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
    # BENCH_SKIP_CONTEXT reaches the bench through the environment (its report table).
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
# The competitors' npm packages, each installed from its lock file once (a stamp holds the
# lock's hash).
for competitor in minisearch flexsearch; do
    dir="$ROOT/benches/$competitor"
    stamp="$dir/node_modules/.radref-lock.sha256"
    want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
        echo "benches/$competitor/node_modules matches its package-lock.json: skipping npm ci"
    else
        (cd "$dir" && PATH="$SYSTEM_PATH" npm ci --no-audit --no-fund --loglevel=error) \
            || die "npm ci in benches/$competitor"
        echo "$want" > "$stamp"
    fi
done
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

trap 'stop_workerd; stop_worker' EXIT
trap 'exit 130' INT TERM


phase "bench: radref against JS + MiniSearch and JS + FlexSearch, one workerd process (wrk -t1, $DURATION per row)"
RP=$(free_port)
MP=$(free_port)
FP=$(free_port)
XP=$(free_port)
config "$OUT/both.capnp" "$RP" "$MP" "$FP" "$XP"
INSPECT="127.0.0.1:$(free_port)"
start_workerd both
R="http://127.0.0.1:$RP"
M="http://127.0.0.1:$MP"
F="http://127.0.0.1:$FP"
X="http://127.0.0.1:$XP"
wait_health "$X"
wait_health "$R"
wait_health "$M"
wait_health "$F"
echo "$(wc -l <"$OUT/queries.txt") distinct queries in the mix; radref on $R, MiniSearch on $M, FlexSearch on $X"
# Warm-up: both isolates see the whole mix once before anything is timed.
wrk -t1 -c8 -d3s -s benches/mix.lua "$R" -- "$OUT/mixed-radref.txt" "" >/dev/null
wrk -t1 -c8 -d3s -s benches/mix.lua "$M" -- "$OUT/mixed-minisearch.txt" "" >/dev/null
wrk -t1 -c8 -d3s -s benches/mix.lua "$X" -- "$OUT/mixed-minisearch.txt" "" >/dev/null
SEARCH=(benches/mix.lua "$OUT/queries.txt" "/api/v1/search?q=")
DETAIL=(benches/mix.lua "$OUT/slugs.txt" "/api/v1/systems/")
CPU_LINES=()
printf '\n| route (vs what) | conns | radref req/s | p50 µs | p99 µs | other req/s | p50 µs | p99 µs | ratio |\n'
printf '|---|---:|---:|---:|---:|---:|---:|---:|---:|\n'
for conns in 1 8; do
    load "$conns" "$M/api/v1/health"; m_h=("$RPS" "$P50" "$P99"); m_hc="$CPU_US"
    load "$conns" "$R/api/v1/health"; r_h=("$RPS" "$P50" "$P99"); r_hc="$CPU_US"
    printf '| health (vs MiniSearch health) | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$conns" "${r_h[@]}" "${m_h[@]}" \
        "$(ratio "${r_h[0]}" "${m_h[0]}")"
    load "$conns" "$M" "${SEARCH[@]}"; m_s=("$RPS" "$P50" "$P99"); m_err="$ERRORS"; m_sc="$CPU_US"
    load "$conns" "$R" "${SEARCH[@]}"; r_s=("$RPS" "$P50" "$P99"); r_err="$ERRORS"; r_sc="$CPU_US"
    printf '| search, query mix (vs MiniSearch) | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$conns" "${r_s[@]}" \
        "${m_s[@]}" "$(ratio "${r_s[0]}" "${m_s[0]}")"
    load "$conns" "$X" "${SEARCH[@]}"; x_s=("$RPS" "$P50" "$P99"); x_err="$ERRORS"; x_sc="$CPU_US"
    printf '| search, query mix (vs FlexSearch) | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$conns" \
        "${r_s[@]}" "${x_s[@]}" "$(ratio "${r_s[0]}" "${x_s[0]}")"
    [ -z "$x_err" ] || echo "errors: FlexSearch: $x_err"
    # The grounding rows below are set against this run's search, per connection count.
    SEARCH_RPS[$conns]="${r_s[0]}"
    load "$conns" "$R" "${DETAIL[@]}"; r_d=("$RPS" "$P50" "$P99"); r_dc="$CPU_US"
    printf '| systems/{slug} (vs MiniSearch search) | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$conns" \
        "${r_d[@]}" "${m_s[@]}" "$(ratio "${r_d[0]}" "${m_s[0]}")"
    [ -z "$r_err$m_err" ] || echo "errors: radref: ${r_err:-none}; MiniSearch: ${m_err:-none}"
    load "$conns" "$F/api/v1/health"; f_h=("$RPS" "$P50" "$P99"); f_hc="$CPU_US"
    printf '| floor: constant answer (vs radref health) | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
        "$conns" "${f_h[@]}" "${r_h[@]}" "$(ratio "${r_h[0]}" "${f_h[0]}")"
    # The same rows in the workerd process's CPU per request, which the machine's speed moves
    # less than requests/s: what each answer costs, not how fast the machine turned it round.
    CPU_LINES+=("$(awk -v c="$conns" -v rs="$r_sc" -v xs="$x_sc" -v ms="$m_sc" -v rd="$r_dc" \
        -v rh="$r_hc" -v mh="$m_hc" -v fh="$f_hc" 'BEGIN {
        printf "process CPU per request at %s connection(s), µs: search radref %d, FlexSearch %d (%.2f× radref), MiniSearch %d (%.2f×); systems/{slug} %d; health radref %d, MiniSearch %d, floor %d", \
            c, rs, xs, xs / rs, ms, ms / rs, rd, rh, mh, fh }')")
    if [ "$conns" = 1 ]; then
        over() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f×", a / b }'; }
        TAILS="radref search $(over "${r_s[2]}" "${r_s[1]}"), MiniSearch search $(over "${m_s[2]}" "${m_s[1]}"), FlexSearch search $(over "${x_s[2]}" "${x_s[1]}"), floor $(over "${f_h[2]}" "${f_h[1]}")"
        # Each corpus route's tail against the floor's in the same run: the runtime's garbage
        # collections set the floor's own, so no worse than it is the target (issue notes).
        vs_floor() {
            awk -v p99="$1" -v p50="$2" -v fp99="${f_h[2]}" -v fp50="${f_h[1]}" -v name="$3" \
                'BEGIN { r = p99 / p50; f = fp99 / fp50;
                         printf "%s %.1f× (%s)", name, r, (r <= f ? "no worse than the floor" : "worse than the floor") }'
        }
        FLOOR_TAILS="$(vs_floor "${r_h[2]}" "${r_h[1]}" health), $(vs_floor "${r_s[2]}" "${r_s[1]}" search), $(vs_floor "${r_d[2]}" "${r_d[1]}" "systems/{slug}"); floor $(over "${f_h[2]}" "${f_h[1]}")"
    fi
done
echo
printf '%s\n' "${CPU_LINES[@]}"
echo "p99 over p50 at 1 connection: $TAILS"
echo "each corpus route's p99 over p50 at 1 connection against the floor's: $FLOOR_TAILS"
echo "bundle (wasm + JS modules, gzip -9): $BUNDLE_GZ bytes"
# Answer quality on the same mix: is the first hit of the system the query was drawn from?
python3 - "$OUT/expected.tsv" "$R" "$M" "$X" <<'PY'
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
      f"MiniSearch {right[1]}/{len(rows)}, FlexSearch {right[2]}/{len(rows)}")
PY
phase_done

if [ -z "${BENCH_SKIP_CONTEXT:-}" ]; then
phase "bench: grounded context over whole reports, POST /mcp radref_ground (wrk -t1, $DURATION per row)"
# The operation a user runs when pasting a whole report: `POST /api/v1/context` and the MCP
# tool `radref_ground` both read the text, split it into findings and ground each one. The
# HTTP route needs an API key from D1, which this workerd config does not bind; the MCP
# endpoint is open and runs the same grounding (plus the markdown block the tool adds to the
# JSON), so wrk POSTs the tool call (benches/ground.lua) with each report of benches/reports,
# a length series of about 200 to 20,000 characters (the most the service reads). Same
# process and isolate as the search rows above, so the ratio to their search mix is one run's.
REPORTS=(benches/reports/*.txt)
# Each report is answered once first, so a refusal cannot pass for a figure: a 200 whose
# result is not an error and holds findings. A report ranks at most 40 present or possible
# findings (context::findings::MAX_FINDINGS; those past it are counted, not ranked); the table
# says how many it ranked, + how many more it had. A grounding spends
# 1 + (chars - 1) / 500 units of the per-client rate limit, so the bench config's limit must
# be far above what these rows spend (benches/ground.lua stops the run at the first 429).
python3 benches/ground.py table "$R" "${REPORTS[@]}" >"$OUT/reports.tsv" || die "radref_ground on benches/reports"
mapfile -t ROWS <"$OUT/reports.tsv"
# Warm-up: each report under load for a second, so the grounding code is compiled before any
# row; then two seconds as the first row runs (the shortest report, 1 connection). Each row
# then starts from a collected heap (collect), so its p99 is its own garbage's, not the rows'
# before it.
for f in "${REPORTS[@]}"; do
    wrk -t1 -c8 -d1s -s benches/ground.lua "$R" -- "$f" >/dev/null
done
wrk -t1 -c1 -d2s -s benches/ground.lua "$R" -- "${REPORTS[0]}" >/dev/null
ms() { awk -v us="$1" 'BEGIN { printf "%.2f", us / 1000 }'; }
# The process CPU column (load's CPU_US): only radref is loaded while a row runs, so it is
# radref's CPU per request plus the runtime's HTTP work for it, a direct figure for the limit.
# Requests/s against the search mix's at the same connection count, in the same process.
vs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3g×", a / b }'; }
printf '\n| report | chars | findings | answer bytes | 1 conn req/s | p50 ms | p99 ms | vs search | ms per 1,000 chars at p50 | process CPU ms per request | 8 conns req/s | p50 ms | p99 ms | vs search |\n'
printf '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n'
CX_FIRST="" CX_LAST="" CX_OVER="" CX_OVER99=""
for row in "${ROWS[@]}"; do
    IFS=$'\t' read -r file chars found bytes units <<<"$row"
    load 1 "$R" benches/ground.lua "$file"; one=("$RPS" "$P50" "$P99"); err1="$ERRORS"
    cpu=$(ms "$CPU_US")
    load 8 "$R" benches/ground.lua "$file"; eight=("$RPS" "$P50" "$P99"); err8="$ERRORS"
    # Microseconds per character are milliseconds per 1,000 characters.
    per_k=$(awk -v us="${one[1]}" -v n="$chars" 'BEGIN { printf "%.2f", us / n }')
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
        "$(basename "$file" .txt)" "$chars" "$found" "$bytes" \
        "${one[0]}" "$(ms "${one[1]}")" "$(ms "${one[2]}")" "$(vs "${one[0]}" "${SEARCH_RPS[1]}")" \
        "$per_k" "$cpu" \
        "${eight[0]}" "$(ms "${eight[1]}")" "$(ms "${eight[2]}")" "$(vs "${eight[0]}" "${SEARCH_RPS[8]}")"
    [ -z "$err1$err8" ] || echo "errors: 1 connection: ${err1:-none}; 8 connections: ${err8:-none}"
    [ -n "$CX_FIRST" ] || CX_FIRST="$chars ${one[1]}"
    CX_LAST="$chars ${one[1]} ${one[2]} $units $cpu"
    # The shortest reports whose p50 and p99 at 1 connection are over the free plan's 10 ms.
    [ -n "$CX_OVER" ] || [ "${one[1]}" -le 10000 ] || CX_OVER="$chars"
    [ -n "$CX_OVER99" ] || [ "${one[2]}" -le 10000 ] || CX_OVER99="$chars"
done
echo
read -r c0 p0 <<<"$CX_FIRST"
read -r c1 p1 q1 u1 cpu1 <<<"$CX_LAST"
limit=$(awk -F'"' '/CORPUS_RATE_LIMIT/ {print $4}' benches/workerd/bench.capnp.in)
awk -v c0="$c0" -v p0="$p0" -v c1="$c1" -v p1="$p1" 'BEGIN {
    printf "growth at 1 connection: p50 %.2f ms for %d characters, %.2f ms for %d: %.1f× the time for %.0f× the text\n",
        p0 / 1000, c0, p1 / 1000, c1, p1 / p0, c1 / c0 }'
echo "the search mix in the same process: ${SEARCH_RPS[1]} requests/s at 1 connection, ${SEARCH_RPS[8]} at 8"
echo "latency at 1 connection on an otherwise idle machine approximates the worker's CPU time per"
echo "request (one request at a time, none queued; loopback HTTP and wrk add some tens of µs, and"
echo "wrk shares the cores); the CPU column is the workerd process's CPU time over the row, per"
echo "request, and agrees. p99 adds the runtime's garbage collections (an answer up to 32 KiB crosses"
echo "as a string, garbage for the isolate; a larger one as bytes the runtime copies). The Workers free"
echo "plan allows 10 ms of CPU per request: the longest"
awk -v c="$c1" -v p="$p1" -v q="$q1" -v cpu="$cpu1" 'BEGIN {
    printf "report (%d characters) has p50 %.2f ms and p99 %.2f ms at 1 connection, %.1f× the limit at p99;\n",
        c, p / 1000, q / 1000, q / 10000
    printf "the workerd process spent %.2f ms of CPU per request on it (%.1f× the limit)\n", cpu, cpu / 10
    printf "margin to the 10 ms limit (negative: over it): %.0f%% at p99, %.0f%% of process CPU\n",
        100 - q / 100, 100 - cpu * 10 }'
over() { if [ -n "$1" ]; then echo "$1 characters"; else echo "none"; fi; }
echo "shortest report over 10 ms at 1 connection: at p50 $(over "${CX_OVER:-}"), at p99 $(over "${CX_OVER99:-}")"
echo "rate limit: the longest report spends $u1 units a request; the bench config allows $limit per window"
phase_done
fi
stop_workerd

if [ -z "${BENCH_SKIP_MEMORY:-}" ]; then
phase "bench: cold start and memory, each service alone in its own workerd process"
# A fresh process per service: time from spawning workerd to the first answer, the latency of
# that first request, then $MEMORY_REQUESTS mixed requests (search mix, every detail, health)
# and the process's resident memory and radref's wasm memory before and after.
mem_row() {
    local name="$1" rp="$2" mp="$3" url="$4" mix="$5" xp="${6:-0}" rss0 rss1 wasm0 wasm1 done=0
    config "$OUT/$name.capnp" "$rp" "$mp" 0 "$xp"
    cold_start "$name" "$url"
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
    printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$READY_MS" "$FIRST_MS" "$done" \
        "$((rss0 / 1024))" "$((rss1 / 1024))" "$wasm0" "$wasm1"
}
printf '\n| service | start to first answer ms | first request ms | requests | RSS after warm-up MiB | RSS after MiB | wasm bytes after warm-up | wasm bytes after |\n'
printf '|---|---:|---:|---:|---:|---:|---:|---:|\n'
P=$(free_port)
mem_row radref "$P" 0 "http://127.0.0.1:$P" "$OUT/mixed-radref.txt"
P=$(free_port)
mem_row minisearch 0 "$P" "http://127.0.0.1:$P" "$OUT/mixed-minisearch.txt"
P=$(free_port)
mem_row flexsearch 0 0 "http://127.0.0.1:$P" "$OUT/mixed-minisearch.txt" "$P"
# A report's first grounding in a fresh isolate builds what grounding keeps for the isolate's
# life (the lexicon's phrase indexes, the index's term table, each system's logic as it is first
# needed), so it costs more than the warm rows above. Three fresh radref processes, each
# answering health first (its wasm instantiated), then the longest report three times, one
# request at a time: the latency of each. (Not the process CPU: the runtime compiles the hot
# wasm functions again, optimised, on threads of its own while the first requests run.)
LONGEST=$(ls -S benches/reports/*.txt | head -1)
printf '\n| fresh radref process | %s: first grounding ms | second ms | third ms |\n|---|---:|---:|---:|\n' "$(basename "$LONGEST")"
for n in 1 2 3; do
    P=$(free_port)
    config "$OUT/cold-ground.capnp" "$P" 0
    cold_start cold-ground "http://127.0.0.1:$P"
    python3 benches/ground.py fresh "http://127.0.0.1:$P" "$LONGEST" "$n" || die "radref_ground on a fresh process"
    stop_workerd
done
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
