#!/usr/bin/env bash
# `make bench-scale`: how radref grows with its corpus. For each size of SCALE_SIZES (default
# 41 200 500 1000 systems) it writes a synthetic corpus from the real one
# (scripts/corpus-synth.py: the real systems first, then renamed and perturbed copies; never
# shipped), builds the worker over it as deployed (RADREF_CORPUS, release, wasm-opt), and
# reports where the system bodies went (the bundle, or the corpus store's packs: the build
# chooses by size) and the store's bytes, the wasm raw and gzipped, the build time, the cold
# start (workerd spawned to first answer), the first request's latency and the first detail's
# (which reads the store), the process's memory, and the search mix's p50 and p99 at one
# connection in plain workerd, the store served by a disk service as the platform serves assets. It checks that every corpus route answers at that
# size, and runs `wrangler deploy --dry-run` on the largest size. The last line is for scripts:
#   scale N: wasm_gzip_bytes=B deploy_dry_run=ok|over_limit|failed search_p50_ms=X
# where the limit is the paid plan's 10 MB of compressed worker (the free plan's is 3 MB).
# Everything goes to build/scale/; build/ itself is left as it was. Not part of `make test`.
set -euo pipefail
source "$(dirname "$0")/env.sh"
source "$(dirname "$0")/bench-lib.sh"
cd "$ROOT"

SIZES="${SCALE_SIZES:-41 200 500 1000}"
DURATION="${BENCH_DURATION:-5s}"
SCALE="$ROOT/build/scale"
# The compressed size the platform allows a worker on the paid plan (10 MB; free: 3 MB).
LIMIT_BYTES=$((10 * 1024 * 1024))
mkdir -p "$SCALE"

"$ROOT/scripts/setup.sh"
command -v wrk >/dev/null || die "wrk is not installed: run make bench once, or 'sudo apt-get install wrk'"
[ -x "$WORKERD" ] || die "no workerd binary at $WORKERD (it comes with wrangler: run make setup)"
trap 'stop_workerd' EXIT
trap 'exit 130' INT TERM

phase "bench-scale: the query mix, from the real corpus"
# The same queries at every size (drawn from the real systems, which every size above 41
# holds), exported from the real corpus's compiled index with bench-export's fixed seed.
cargo run --quiet --release --locked --features tools --bin bench-export -- "$SCALE/mix" \
    || die "bench-export"
echo "$(wc -l <"$SCALE/mix/queries.txt") queries"
phase_done

printf '\n| systems | bodies | store bytes | wasm raw bytes | wasm + JS gzip bytes | build s | start to first answer ms | first request ms | first detail ms | RSS MiB | wasm memory bytes | search p50 µs | search p99 µs | search req/s | routes |\n'
printf '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n'
LAST=""
for n in $SIZES; do
    dir="$SCALE/$n"
    mkdir -p "$dir"
    python3 scripts/corpus-synth.py corpus "$dir/corpus" "$n" >"$dir/synth.log" || die "corpus-synth $n"
    # The build's own target directory keeps the dependencies built once for every size.
    start=$(date +%s)
    RADREF_CORPUS="$dir/corpus" CARGO_TARGET_DIR="$ROOT/target/scale" RADREF_ASSETS_DIR="$dir/assets" \
        WORKER_BUILD_ARGS="--release --out-dir build/scale/$n/out" sh scripts/worker-build.sh \
        >"$dir/build.log" 2>&1 || { tail -30 "$dir/build.log" >&2; die "build at $n systems"; }
    build_s=$(( $(date +%s) - start ))
    raw=$(stat -c %s "$dir/out/index_bg.wasm")
    gz=$(( $(gzip -9c "$dir/out/index_bg.wasm" | wc -c) + $(cat "$dir/out/index.js" src/platform/entry.js | gzip -9c | wc -c) ))
    # The competitor's module of the shared config is not served here; it needs a file to embed.
    mkdir -p "$dir/out/bench"
    echo '[]' >"$dir/out/bench/docs.json"

    # Cold start: a fresh workerd process serving only radref.
    OUT="$dir"
    port=$(free_port)
    CONFIG_BUILD=out CONFIG_ROOT=../../.. CONFIG_ASSETS="$dir/assets" config "$dir/scale.capnp" "$port" 0
    url="http://127.0.0.1:$port"
    cold_start scale "$url"

    # The isolate's first request that needs a system body (it reads the store, if any).
    slug=$(awk '!/^#/ { print; exit }' "$dir/corpus/slugs.txt")
    detail_ms=$(curl -fsS -o /dev/null -w '%{time_total}' "$url/api/v1/systems/$slug" \
        | awk '{ printf "%.1f", $1 * 1000 }')
    bodies=$(curl -fsS "$url/api/v1/health" | python3 -c 'import json,sys; print(json.load(sys.stdin)["corpus"].get("bodies", "-"))')
    store_bytes=0
    [ ! -d "$dir/assets/corpus-store" ] || store_bytes=$(du -sb "$dir/assets/corpus-store" | cut -f1)
    # Every corpus route answers, at this size.
    python3 benches/scale_routes.py "$url" "$dir/corpus" >"$dir/routes.log" 2>&1 \
        && routes=ok || { routes=FAILED; tail -5 "$dir/routes.log" >&2; }

    # Warm-up over the mix, then the timed search row at one connection.
    wrk -t1 -c8 -d2s -s benches/mix.lua "$url" -- "$SCALE/mix/queries.txt" "/api/v1/search?q=" >/dev/null
    load 1 "$url" benches/mix.lua "$SCALE/mix/queries.txt" "/api/v1/search?q="
    rss=$(awk '/VmRSS/ {print $2}' "/proc/$WORKERD_PID/status")
    wasm_mem=$(curl -fsS "$url/api/v1/health" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("memory", {}).get("wasm_bytes", "-"))')
    stop_workerd
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$n" \
        "$bodies" "$store_bytes" "$raw" "$gz" "$build_s" "$READY_MS" "$FIRST_MS" "$detail_ms" \
        "$((rss / 1024))" "$wasm_mem" "$P50" "$P99" "$RPS" "$routes"
    [ "$routes" = ok ] || die "a corpus route failed at $n systems (see $dir/routes.log)"
    LAST="$n $gz $P50"
done

read -r n gz p50 <<<"$LAST"
dir="$SCALE/$n"
phase "bench-scale: wrangler deploy --dry-run at $n systems"
# A config of its own beside the build: the same entry module over this size's output, no
# build command (the worker is already built), so wrangler bundles exactly what would upload.
sed 's|"../../build/index.js"|"./index.js"|' src/platform/entry.js >"$dir/out/entry.js"
cat >"$dir/wrangler.toml" <<EOF
name = "radref-scale-$n"
main = "out/entry.js"
compatibility_date = "$COMPAT_DATE"

[assets]
directory = "assets"
binding = "ASSETS"
run_worker_first = ["/api/*", "/mcp", "/feed/*", "/llms.txt", "/corpus-store/*"]
EOF
verdict=failed
if wrangler deploy --dry-run --config "$dir/wrangler.toml" --outdir "$dir/dry-run" >"$dir/dry-run.log" 2>&1; then
    # wrangler prints "Total Upload: X KiB / gzip: Y KiB".
    kib=$(sed -n 's/.*gzip: \([0-9.]*\) KiB.*/\1/p' "$dir/dry-run.log" | tail -1)
    echo "wrangler: $(grep -m1 'Total Upload' "$dir/dry-run.log")"
    if [ -n "$kib" ] && awk -v k="$kib" -v l="$LIMIT_BYTES" 'BEGIN { exit !(k * 1024 <= l) }'; then
        verdict=ok
    else
        verdict=over_limit
    fi
else
    tail -20 "$dir/dry-run.log" >&2
fi
phase_done
echo "scale $n: wasm_gzip_bytes=$gz deploy_dry_run=$verdict search_p50_ms=$(awk -v us="$p50" 'BEGIN { printf "%.3f", us / 1000 }')"
