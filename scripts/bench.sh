#!/usr/bin/env bash
# `npm run bench`: builds the bench natively and for WASM and the engine, then prints one table.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native --target attention_bench -j "$(nproc)" >/dev/null
bash scripts/build.sh >/dev/null
cmake --build build/wasm --target attention_bench_wasm -j "$(nproc)" >/dev/null
node scripts/bench.mjs
node scripts/measure-page.mjs
