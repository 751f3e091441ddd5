# Shared pieces of the benchmarks (sourced by bench.sh and bench-scale.sh after env.sh): the
# plain workerd process, its config, and one wrk run. The caller sets OUT (where configs and
# logs go) and DURATION (of a wrk run).

WORKERD="$ROOT/node_modules/@cloudflare/workerd-linux-64/bin/workerd"
COMPAT_DATE=$(awk -F'"' '/^compatibility_date/ {print $2}' "$ROOT/wrangler.toml")

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Writes a workerd config serving radref on $2, MiniSearch on $3, the floor on $4 and FlexSearch
# on $5 (0 or nothing leaves one out). Module paths are relative to the config: CONFIG_BUILD is
# worker-build's output (default .., for a config in build/bench) and CONFIG_ROOT the
# repository (default ../..); CONFIG_ASSETS is the static assets directory, absolute (default
# build/assets), which a disk service serves to radref's ASSETS binding.
config() {
    local out="$1" build="${CONFIG_BUILD:-..}" root="${CONFIG_ROOT:-../..}"
    # Each service with its socket, or nothing when its port is 0.
    served() {
        local name="$1" port="$2" extra="${3:-}"
        [ "$port" != 0 ] || { echo "|"; return; }
        echo "(name = \"$name\", worker = .$name),$extra|(name = \"$name-http\", address = \"127.0.0.1:$port\", http = (), service = \"$name\"),"
    }
    local r m f x
    r=$(served radref "$2" " (name = \"radref-assets\", disk = (path = \"${CONFIG_ASSETS:-$ROOT/build/assets}\")),")
    m=$(served minisearch "$3")
    f=$(served floor "${4:-0}")
    x=$(served flexsearch "${5:-0}")
    sed -e "s|@RADREF_SERVICE@|${r%%|*}|" -e "s|@RADREF_SOCKET@|${r#*|}|" \
        -e "s|@MINI_SERVICE@|${m%%|*}|" -e "s|@MINI_SOCKET@|${m#*|}|" \
        -e "s|@FLOOR_SERVICE@|${f%%|*}|" -e "s|@FLOOR_SOCKET@|${f#*|}|" \
        -e "s|@FLEX_SERVICE@|${x%%|*}|" -e "s|@FLEX_SOCKET@|${x#*|}|" \
        -e "s|@BUILD@|$build|g" -e "s|@ROOT@|$root|g" -e "s|@MINI@|$root/benches/minisearch|g" \
        -e "s|@FLEX@|$root/benches/flexsearch|g" -e "s|@COMPAT_DATE@|$COMPAT_DATE|g" \
        benches/workerd/bench.capnp.in > "$out"
}

WORKERD_PID=""
# With INSPECT set (host:port) when workerd starts, its inspector listens there and each timed
# row (load) starts with a full garbage collection in every isolate (benches/collect.mjs).
INSPECT=""
# Starts workerd on $OUT/<name>.capnp in its own process group; logs to $OUT/<name>.log.
start_workerd() {
    local name="$1" inspect=()
    [ -z "$INSPECT" ] || inspect=(--inspector-addr="$INSPECT")
    (cd "$OUT" && exec setsid "$WORKERD" serve "$name.capnp" "${inspect[@]}" </dev/null >"$name.log" 2>&1) &
    WORKERD_PID=$!
}
stop_workerd() {
    if [ -n "$WORKERD_PID" ] && kill -0 "$WORKERD_PID" 2>/dev/null; then
        kill -TERM -- "-$WORKERD_PID" 2>/dev/null || kill -TERM "$WORKERD_PID" 2>/dev/null || true
        wait "$WORKERD_PID" 2>/dev/null || true
    fi
    WORKERD_PID=""
    INSPECT=""
}
# A full garbage collection in every isolate of the running workerd, when it has an inspector.
collect() {
    [ -z "$INSPECT" ] || "$ROOT/node_modules/.bin/node" "$ROOT/benches/collect.mjs" "$INSPECT" || die "garbage collection through $INSPECT"
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
# A cold start: starts workerd on $OUT/<name>.capnp and waits for the first answer of its
# health route on URL; sets READY_MS (process spawned to first answer) and FIRST_MS (that first
# request's latency), or prints the log and stops when it never answers.
cold_start() {
    local name="$1" url="$2" t0 t
    t0=$(date +%s%N)
    start_workerd "$name"
    FIRST_MS=""
    for _ in $(seq 1 6000); do
        if t=$(curl -fsS -m 5 -o /dev/null -w '%{time_total}' "$url/api/v1/health" 2>/dev/null); then
            FIRST_MS=$(awk -v t="$t" 'BEGIN { printf "%.1f", t * 1000 }')
            break
        fi
        kill -0 "$WORKERD_PID" 2>/dev/null || break
        sleep 0.005
    done
    READY_MS=$(( ($(date +%s%N) - t0) / 1000000 ))
    [ -n "$FIRST_MS" ] || { cat "$OUT/$name.log" >&2; die "$name did not answer on $url"; }
}
# CPU time of the whole workerd process so far (user + system, all threads), in clock ticks.
TICKS=$(getconf CLK_TCK)
# (0 without a workerd of this script's: the wrangler dev rows.)
cpu_ticks() {
    if [ -n "$WORKERD_PID" ] && [ -r "/proc/$WORKERD_PID/stat" ]; then
        awk '{ print $14 + $15 }' "/proc/$WORKERD_PID/stat"
    else
        echo 0
    fi
}
# One wrk run: load CONNS URL [LUA_SCRIPT ARGS...]; sets RPS, P50, P99 (microseconds),
# REQUESTS, ERRORS and CPU_US: the workerd process's CPU time over the run per request, in
# microseconds (one service is loaded at a time, so it is that service's CPU per request plus
# the runtime's HTTP work for it; the collection before the run is not counted). It starts
# from a collected heap (collect) unless COLLECTED=1 says the caller has just collected.
load() {
    local conns="$1" url="$2"; shift 2
    local out script=() t0
    [ "${COLLECTED:-}" = 1 ] || collect
    t0=$(cpu_ticks)
    if [ $# -gt 0 ]; then
        script=(-s "$1" "$url" --); shift
    else
        script=("$url")
    fi
    out=$(wrk -t1 -c"$conns" -d"$DURATION" --latency "${script[@]}" "$@")
    RPS=$(awk '/Requests\/sec/ {printf "%.0f", $2}' <<<"$out")
    REQUESTS=$(awk '/requests in/ {print $1}' <<<"$out")
    P50=$(awk '$1 == "50%" {print $2}' <<<"$out" | to_us)
    P99=$(awk '$1 == "99%" {print $2}' <<<"$out" | to_us)
    ERRORS=$(awk '/Non-2xx|Socket errors/ {print}' <<<"$out")
    CPU_US=$(awk -v t="$(( $(cpu_ticks) - t0 ))" -v hz="$TICKS" -v n="$REQUESTS" \
        'BEGIN { printf "%.0f", t * 1000000 / hz / n }')
}
# wrk prints 512.00us, 1.20ms or 1.02s; the table says microseconds.
to_us() {
    awk '{ v = $1 + 0; if ($1 ~ /ms$/) v *= 1000; else if ($1 ~ /[0-9]s$/) v *= 1000000;
           printf "%.0f", v }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f×", a / b }'; }
