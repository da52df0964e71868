#!/usr/bin/env bash
# `npm run bench`: builds the native bench and the engine, then prints one table.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native --target attention_bench -j "$(nproc)" >/dev/null
bash scripts/build.sh >/dev/null
node scripts/bench.mjs
node scripts/measure-page.mjs
