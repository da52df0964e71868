#!/usr/bin/env bash
# `npm run bench`: builds the bench natively (SSE2, and with -march=native) and for WASM and the
# engine, then prints one table, the page's load figures and training.html's responsiveness while
# it trains. The decode rows recompute attention without a cache at 1024 tokens, about two minutes
# per build: the whole bench takes several minutes (the window and positions parts, in turns, add
# about two; the training run about half a minute per build). BENCH_KEEP_DIST=1 skips
# rebuilding the engine and page and times dist/ as it stands.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
# Training is compared with eager PyTorch (scripts/bench/torch_train.py) under Debian's python3,
# where apt puts python3-torch: installed here, not by setup, as only the bench needs it.
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  if [ "$(id -u)" -eq 0 ]; then
    echo "bench: installing python3-torch"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-torch >/dev/null
  else
    echo "bench: PyTorch is missing; run as root:  sudo apt-get install -y python3-torch" >&2
    exit 1
  fi
fi
cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native --target attention_bench -j "$(nproc)" >/dev/null
# The machine's own vector width (AVX-512 here) without fused multiply-adds: the same bits as
# the SSE2 build, so both time the same arithmetic.
cmake -S . -B build/native-march -DCMAKE_BUILD_TYPE=Release \
  "-DCMAKE_CXX_FLAGS=-march=native -ffp-contract=off" >/dev/null
cmake --build build/native-march --target attention_bench -j "$(nproc)" >/dev/null
# emcmake passes a node flag that node 20 rejects as the emulator: set plain node.
emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CROSSCOMPILING_EMULATOR=node >/dev/null 2>&1
[ "${BENCH_KEEP_DIST:-}" = 1 ] || bash scripts/build.sh >/dev/null
cmake --build build/wasm --target attention_bench_wasm -j "$(nproc)" >/dev/null
node scripts/bench.mjs
node scripts/measure-page.mjs
node scripts/measure-training.mjs
echo "bench: $(( $(date +%s) - start )) s"
