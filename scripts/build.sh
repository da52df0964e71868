#!/usr/bin/env bash
# Builds the WebAssembly engine (build/wasm) and assembles the page in dist/.
set -euo pipefail
cd "$(dirname "$0")/.."

start=$(date +%s)
# emcmake passes a node flag that node 20 rejects as the test emulator: set plain node.
emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CROSSCOMPILING_EMULATOR=node >/dev/null
cmake --build build/wasm --target attention_wasm attention_wasm_classic -j "$(nproc)"
node scripts/build-page.mjs
echo "build: engine and page built in $(( $(date +%s) - start )) s"
