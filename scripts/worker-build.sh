#!/bin/sh
# Runs worker-build with the tools `make` installed, so nothing is fetched from the network.
# WORKER_BUILD_ARGS defaults to a full release build; the tests pass "--release --no-opt".
# Then assembles the static assets the worker deploys with (RADREF_ASSETS_DIR, default
# build/assets): the web page (public/) and, when the build placed the system bodies in the
# corpus store, their packs, which build.rs writes to $RADREF_ASSETS_DIR/corpus-store.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
export PATH="$here/node_modules/.bin:$HOME/.cargo/bin:$PATH"
export WASM_BINDGEN_BIN="${WASM_BINDGEN_BIN:-$(command -v wasm-bindgen)}"
export WASM_OPT_BIN="${WASM_OPT_BIN:-$here/node_modules/.bin/wasm-opt}"
export ESBUILD_BIN="${ESBUILD_BIN:-$here/node_modules/.bin/esbuild}"
assets="${RADREF_ASSETS_DIR:-$here/build/assets}"
case "$assets" in /*) ;; *) assets="$here/$assets" ;; esac
export RADREF_STORE_DIR="$assets/corpus-store"
# shellcheck disable=SC2086
worker-build ${WORKER_BUILD_ARGS:---release}
mkdir -p "$assets"
find "$assets" -mindepth 1 -maxdepth 1 ! -name corpus-store -exec rm -rf {} +
cp -R "$here/public/." "$assets/"
