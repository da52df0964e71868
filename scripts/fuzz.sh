#!/usr/bin/env bash
# The libFuzzer target tests/fuzz/fuzz_spec.cpp (clang, with ASan and UBSan).
#   scripts/fuzz.sh [seconds [libFuzzer flags…]]
#                               fuzz for that long (default 60) in build/fuzz, starting from the
#                               committed seeds in tests/fuzz/corpus; new inputs go to
#                               build/fuzz/corpus, crashes to build/fuzz/artifacts (to go on past
#                               a crash: -fork=1 -ignore_crashes=1)
#   scripts/fuzz.sh --replay    run each committed corpus input once (npm test), built in
#                               build/asan beside the sanitized native suite
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/sanitize-env.sh

if [ "${1:-}" = "--replay" ]; then
  configure_sanitized build/asan
  cmake --build build/asan --target fuzz_spec -j "$(nproc)"
  inputs=(tests/fuzz/corpus/*)
  if ! build/asan/fuzz_spec "${inputs[@]}" >build/asan/fuzz-replay.log 2>&1; then
    cat build/asan/fuzz-replay.log
    echo "fuzz: a corpus input failed (log above)" >&2
    exit 1
  fi
  echo "fuzz: replayed ${#inputs[@]} corpus inputs, no finding"
  exit 0
fi

seconds="${1:-60}"
shift || true
# Coverage over the whole core, and xtensor's index checks on (a wrong index throws).
configure_sanitized build/fuzz "-fsanitize=fuzzer-no-link -DXTENSOR_ENABLE_ASSERT"
cmake --build build/fuzz --target fuzz_spec -j "$(nproc)"
mkdir -p build/fuzz/corpus build/fuzz/artifacts
FUZZ_TALLY=1 nice -n 10 build/fuzz/fuzz_spec build/fuzz/corpus tests/fuzz/corpus \
  -max_total_time="$seconds" -max_len=4096 -timeout=20 -print_final_stats=1 \
  -artifact_prefix=build/fuzz/artifacts/ "$@"
