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
