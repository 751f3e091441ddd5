# Shared environment of the radref scripts (sourced, not run).
# Tools live outside the repository so a fresh clone on the same machine reuses them.
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CARGO_BIN="${CARGO_HOME:-$HOME/.cargo}/bin"
# The machine's own PATH, for npm itself (it runs on the system Node).
SYSTEM_PATH="$CARGO_BIN:$PATH"
export PATH="$ROOT/node_modules/.bin:$CARGO_BIN:$PATH"
# wrangler: no prompts, no telemetry, no request.cf fetch, no update prompts.
export CI=true
export WRANGLER_SEND_METRICS=false
export WRANGLER_SEND_ERROR_REPORTS=false
export CLOUDFLARE_CF_FETCH_ENABLED=false
export WRANGLER_NO_SKILLS_UPDATE_PROMPTS=true
export WRANGLER_LOG_PATH="$ROOT/.wrangler/logs"

# Python tools for the tests live outside the repository too, reused by every clone.
PY_VENV="${RADREF_VENV:-$HOME/.cache/radref/venv}"

# Versions pinned by the project. wasm-bindgen must equal Cargo.lock's, exactly.
WORKER_BUILD_VERSION=0.8.7
WASM_BINDGEN_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, "", $0); print; exit }' "$ROOT/Cargo.lock")

# Prints a phase banner and remembers when it started; `phase_done` prints its duration.
phase() {
    PHASE_NAME="$1"
    PHASE_START=$(date +%s)
    printf '\n==> %s\n' "$PHASE_NAME"
}
phase_done() {
    printf '<== %s: %ss\n' "$PHASE_NAME" "$(($(date +%s) - PHASE_START))"
}
die() {
    printf '\nFAILED: %s\n' "$*" >&2
    exit 1
}

# A throw-away worker for tests and benchmarks.
#   start_worker STATE_DIR [--var NAME:VALUE ...]
# runs `wrangler dev` on a free loopback port in its own process group, persisting into
# STATE_DIR, and waits until it answers; sets BASE_URL and WORKER_PID, logs to
# STATE_DIR/wrangler.log. stop_worker ends the whole group; call it from an EXIT trap.
WORKER_PID=""
start_worker() {
    local state="$1"; shift
    local port
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    BASE_URL="http://127.0.0.1:$port"
    setsid wrangler dev --ip 127.0.0.1 --port "$port" --persist-to "$state" \
        --show-interactive-dev-session=false "$@" </dev/null >"$state/wrangler.log" 2>&1 &
    WORKER_PID=$!
    # While the build is broken, requests hang instead of failing: bound each poll and the wait.
    for _ in $(seq 1 180); do
        if curl -fsS -m 2 "$BASE_URL/api/v1/health" >/dev/null 2>&1; then
            echo "worker answering on $BASE_URL"
            return 0
        fi
        kill -0 "$WORKER_PID" 2>/dev/null || break
        sleep 1
    done
    echo "--- wrangler dev log ---"; cat "$state/wrangler.log"
    die "wrangler dev did not answer on $BASE_URL"
}
stop_worker() {
    if [ -n "$WORKER_PID" ] && kill -0 "$WORKER_PID" 2>/dev/null; then
        kill -TERM -- "-$WORKER_PID" 2>/dev/null || true
        sleep 1
        kill -KILL -- "-$WORKER_PID" 2>/dev/null || true
    fi
}
