#!/usr/bin/env bash
# Installs what radref needs to build and run, skipping whatever is already at the right
# version: the wasm32 target, worker-build, wasm-bindgen-cli (into ~/.cargo/bin), the npm
# packages (wrangler, Node 22, binaryen, playwright-core) into node_modules/, the Python test
# tools, and Debian's chromium for the browser tests.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"

[ -n "$WASM_BINDGEN_VERSION" ] || die "cannot read the wasm-bindgen version from Cargo.lock"

phase "setup: rust wasm32 target"
if rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    echo "wasm32-unknown-unknown already installed: skipping"
else
    echo "installing wasm32-unknown-unknown"
    rustup target add wasm32-unknown-unknown || die "rustup target add wasm32-unknown-unknown"
fi
phase_done

phase "setup: worker-build $WORKER_BUILD_VERSION"
have=$(worker-build --version 2>/dev/null | awk '{print $NF}' || true)
if [ "$have" = "$WORKER_BUILD_VERSION" ]; then
    echo "worker-build $have already installed in $(dirname "$(command -v worker-build)"): skipping"
else
    echo "installing worker-build $WORKER_BUILD_VERSION into $CARGO_BIN (about 6 minutes, once)"
    cargo install worker-build --version "$WORKER_BUILD_VERSION" --locked \
        || die "cargo install worker-build"
fi
phase_done

phase "setup: wasm-bindgen-cli $WASM_BINDGEN_VERSION"
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $NF}' || true)
if [ "$have" = "$WASM_BINDGEN_VERSION" ]; then
    echo "wasm-bindgen $have already installed in $(dirname "$(command -v wasm-bindgen)"): skipping"
else
    # No --locked: the CLI's own lock file names a crate version the registry mirror lacks.
    echo "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION into $CARGO_BIN (about 4 minutes, once)"
    cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force \
        || die "cargo install wasm-bindgen-cli"
fi
phase_done

phase "setup: npm packages (wrangler, node 22, binaryen, playwright-core)"
stamp="node_modules/.radref-lock.sha256"
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x node_modules/.bin/wrangler ]; then
    echo "node_modules matches package-lock.json: skipping npm ci"
else
    echo "running npm ci"
    # npm runs on the machine's Node 20; the packages it installs bring Node 22 for wrangler.
    PATH="$SYSTEM_PATH" npm ci --no-audit --no-fund --loglevel=error || die "npm ci"
    echo "$want" > "$stamp"
fi
node_version=$(node --version)
case "$node_version" in
    v22.*) echo "node $node_version from node_modules/.bin" ;;
    *) die "expected Node 22 from node_modules/.bin, found $node_version" ;;
esac
phase_done

phase "setup: python test tools (tests/requirements.txt)"
want=$(sha256sum tests/requirements.txt | cut -d' ' -f1)
if [ -x "$PY_VENV/bin/python" ] && [ "$(cat "$PY_VENV/.requirements.sha256" 2>/dev/null)" = "$want" ]; then
    echo "venv $PY_VENV matches tests/requirements.txt: skipping"
else
    echo "creating venv $PY_VENV and installing tests/requirements.txt"
    python3 -m venv "$PY_VENV" || die "python3 -m venv"
    "$PY_VENV/bin/pip" install --quiet --disable-pip-version-check -r tests/requirements.txt \
        || die "pip install -r tests/requirements.txt"
    echo "$want" > "$PY_VENV/.requirements.sha256"
fi
phase_done

phase "setup: chromium for the browser tests (Debian package)"
if [ -x /usr/bin/chromium ]; then
    echo "$(/usr/bin/chromium --version 2>/dev/null | head -n 1) already installed at /usr/bin/chromium: skipping"
elif [ "$(id -u)" = 0 ]; then
    echo "/usr/bin/chromium is missing: running 'apt-get install -y chromium' (about 1 minute, once)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium >/dev/null \
        || { apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium >/dev/null; } \
        || die "apt-get install chromium"
    echo "installed $(/usr/bin/chromium --version 2>/dev/null | head -n 1)"
else
    die "/usr/bin/chromium is missing: run 'sudo apt-get install chromium' (the browser tests drive it)"
fi
phase_done
