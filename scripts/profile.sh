#!/usr/bin/env bash
# `make profile`: where radref's CPU time goes in plain workerd, by function. Builds the worker as
# `make bench` does (release, LTO, wasm-opt) but keeping the wasm's function names (a profiling
# build in build/profile, its own cargo target directory, so build/ and target/ are untouched),
# serves it alone in workerd with its inspector on, and samples the isolate (benches/profile.mjs)
# while wrk runs one route: the search route over the bench's query mix, then the grounding of
# the longest bench report (POST /mcp radref_ground, as `make bench` times it). Prints the
# functions with the most self and inclusive time; each profile is kept as a .cpuprofile file,
# which a browser's devtools open. Not part of `make test`: nothing here asserts a time.
#
# PROFILE_SECONDS (default 8) is how long each route is sampled; PROFILE_ROWS (default 25) how
# many functions each table lists; PROFILE_REPORT the report to ground (default the longest of
# benches/reports); PROFILE_NO_BUILD=1 reuses build/profile as it is.
set -euo pipefail
source "$(dirname "$0")/env.sh"
source "$(dirname "$0")/bench-lib.sh"
cd "$ROOT"

SECONDS_PER_ROUTE="${PROFILE_SECONDS:-8}"
ROWS="${PROFILE_ROWS:-25}"
REPORT="${PROFILE_REPORT:-$(ls -S benches/reports/*.txt | head -n 1)}"
OUT="$ROOT/build/profile"
DURATION="${SECONDS_PER_ROUTE}s"

"$ROOT/scripts/setup.sh"
command -v wrk >/dev/null || die "wrk is not installed: run 'sudo apt-get install wrk' (make bench installs it as root)"
[ -x "$WORKERD" ] || die "no workerd binary at $WORKERD (it comes with wrangler: run make setup)"

if [ -z "${PROFILE_NO_BUILD:-}" ]; then
    phase "profile: release build with wasm-opt, function names kept (build/profile)"
    # The release profile strips symbols (Cargo.toml); wasm-opt keeps the name section with -g.
    # The cargo target directory is its own, so the deployed build's artifacts are not rebuilt.
    CARGO_PROFILE_RELEASE_STRIP=none CARGO_TARGET_DIR="$ROOT/target/profile" \
        WORKER_BUILD_ARGS="--profiling --out-dir build/profile" \
        sh scripts/worker-build.sh >"$ROOT/build/profile-build.log" 2>&1 \
        || { tail -n 30 "$ROOT/build/profile-build.log" >&2; die "profiling build (log: build/profile-build.log)"; }
    phase_done
fi
[ -f "$OUT/index_bg.wasm" ] || die "no profiling build in build/profile (run without PROFILE_NO_BUILD)"

phase "profile: the query mix, from the compiled corpus"
# Into build/profile/bench, where the workerd config (benches/workerd/bench.capnp.in, shared with
# `make bench`) embeds the competitors' documents from, though only radref is served here.
cargo run --quiet --release --locked --features tools --bin bench-export -- "$OUT/bench" >/dev/null \
    || die "bench-export"
phase_done

trap stop_workerd EXIT
trap 'exit 130' INT TERM
RP=$(free_port)
INSPECT="127.0.0.1:$(free_port)"
CONFIG_BUILD=. CONFIG_ROOT=../.. config "$OUT/profile.capnp" "$RP" 0
start_workerd profile
R="http://127.0.0.1:$RP"
wait_health "$R"

# One route sampled while wrk loads it at one connection; the wrk run outlasts the sampling.
profile_route() {
    local title="$1" file="$2"
    shift 2
    phase "profile: $title (wrk -t1 -c1, sampled $DURATION)"
    wrk -t1 -c1 -d3s -s "$@" >/dev/null
    wrk -t1 -c1 -d"$((SECONDS_PER_ROUTE + 2))s" -s "$@" >"$OUT/$file.wrk" &
    local load=$!
    sleep 1
    "$ROOT/node_modules/.bin/node" benches/profile.mjs "$INSPECT" "$SECONDS_PER_ROUTE" \
        "$OUT/$file.cpuprofile" "$ROWS" || die "profile of $title"
    wait "$load"
    echo "requests/s under the sampler: $(awk '/Requests\/sec/ {print $2}' "$OUT/$file.wrk"); profile in build/profile/$file.cpuprofile"
    phase_done
}
profile_route "search, the query mix" search benches/mix.lua "$R" -- "$OUT/bench/queries.txt" "/api/v1/search?q="
profile_route "grounding of $(basename "$REPORT") ($(wc -c <"$REPORT") bytes)" ground benches/ground.lua "$R" -- "$REPORT"
