#!/usr/bin/env bash
# Runs every test: native (Catch2 via CTest), the WASM engine under node, the page in Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."

# Every JS file as Prettier writes it, no line over 120 characters (node scripts/format.mjs fixes the first).
node scripts/format.mjs --check

cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native --target native_tests -j "$(nproc)"
ctest --test-dir build/native --no-tests=error --output-on-failure -j "$(nproc)"
# The same suite under ASan + UBSan (build/asan), then each fuzz corpus input once.
bash scripts/sanitize.sh
bash scripts/fuzz.sh --replay

# Two files at a time on two cores (node's default is one fewer than the cores): each browser test
# file opens its own Chromium and each test its own page, so files do not share state.
node --test --test-concurrency=2 tests/model/ tests/wasm/ tests/package/
node --test --test-concurrency=2 tests/browser/
# The README's course recipes for real: MkDocs, a reveal.js deck, a Jupyter notebook (installs
# Debian mkdocs and jupyter-notebook first, when missing).
bash scripts/setup-course.sh && node --test --test-concurrency=1 tests/course/
