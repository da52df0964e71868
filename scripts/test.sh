#!/usr/bin/env bash
# Runs every test: native (Catch2 via CTest), the WASM engine under node, the page in Chromium.
# `npm test` runs this alone: it installs and builds first, and prints a table of where the time went.
set -euo pipefail
cd "$(dirname "$0")/.."

timings=()
# suite <name> <command…>: runs the command and notes its wall time for the table at the end.
suite() {
  local name=$1 start=$SECONDS
  shift
  "$@"
  timings+=("$(printf '%-34s %5d s' "$name" $((SECONDS - start)))")
}
print_timings() {
  echo
  echo "npm test: where the time went"
  printf '  %s\n' "${timings[@]}"
  printf '  %-34s %5d s\n' total "$SECONDS"
}
trap print_timings EXIT

suite "setup (apt, npm ci)" bash scripts/setup.sh
suite "build (engine, page)" bash scripts/build.sh
# Every JS file as Prettier writes it, no line over 120 characters (node scripts/format.mjs fixes the first).
suite "format check" node scripts/format.mjs --check

native() {
  cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build/native --target native_tests -j "$(nproc)"
  ctest --test-dir build/native --no-tests=error --output-on-failure -j "$(nproc)"
}
suite "native (build, ctest)" native
# The same suite under ASan + UBSan (build/asan), then each fuzz corpus input once.
suite "sanitized (build, ctest)" bash scripts/sanitize.sh
suite "fuzz corpus replay" bash scripts/fuzz.sh --replay

# Two files at a time on two cores (node's default is one fewer than the cores): each browser test
# file opens its own Chromium and each test its own page, so files do not share state.
suite "node: model, wasm, package" node --test --test-concurrency=2 tests/model/ tests/wasm/ tests/package/
suite "browser" node --test --test-concurrency=2 tests/browser/
# The README's course recipes for real: MkDocs, a reveal.js deck, a Jupyter notebook (installs
# Debian mkdocs and jupyter-notebook first, when missing).
suite "course setup (apt)" bash scripts/setup-course.sh
suite "course tools" node --test --test-concurrency=1 tests/course/
