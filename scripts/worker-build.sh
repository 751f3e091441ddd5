#!/bin/sh
# Runs worker-build with the tools `make` installed, so nothing is fetched from the network.
# WORKER_BUILD_ARGS defaults to a full release build; the tests pass "--release --no-opt".
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
export PATH="$here/node_modules/.bin:$HOME/.cargo/bin:$PATH"
export WASM_BINDGEN_BIN="${WASM_BINDGEN_BIN:-$(command -v wasm-bindgen)}"
export WASM_OPT_BIN="${WASM_OPT_BIN:-$here/node_modules/.bin/wasm-opt}"
export ESBUILD_BIN="${ESBUILD_BIN:-$here/node_modules/.bin/esbuild}"
# shellcheck disable=SC2086
exec worker-build ${WORKER_BUILD_ARGS:---release}
