#!/usr/bin/env bash
# The native suite built with clang and run under ASan (leaks included) and UBSan, in build/asan
# (flags: scripts/sanitize-env.sh). Any report fails the run.
#
# Every test case runs, in two processes side by side, each running its half of the cases one
# after another (CTest would start a process per case: ASan's start-up and leak check, ~0.1 s
# each, 259 times). The plain build (scripts/test.sh) runs the same cases through CTest, one
# process each. Which process ran which cases: build/asan/shard-*.txt and shard-*.log.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/sanitize-env.sh

configure_sanitized build/asan
cmake --build build/asan --target native_tests -j "$(nproc)"

# Catch2 reads a test spec per line of -f: its special characters escaped, as CTest's are.
names=()
while IFS= read -r name; do
  [ -n "$name" ] && names+=("$name")
done < <(build/asan/native_tests --list-test-names-only || true)
[ ${#names[@]} -gt 0 ] || { echo "sanitize: no test cases listed" >&2; exit 1; }
shards=2
for ((s = 0; s < shards; s++)); do : >"build/asan/shard-$s.txt"; done
for i in "${!names[@]}"; do
  printf '%s\n' "${names[$i]}" | sed 's/[],[\\*~"]/\\&/g' >>"build/asan/shard-$((i % shards)).txt"
done

pids=()
for ((s = 0; s < shards; s++)); do
  build/asan/native_tests -f "build/asan/shard-$s.txt" --warn NoTests >"build/asan/shard-$s.log" 2>&1 &
  pids+=($!)
done
failed=0
ran=0
for ((s = 0; s < shards; s++)); do
  if ! wait "${pids[$s]}"; then
    failed=1
    cat "build/asan/shard-$s.log"
  fi
  # "All tests passed (N assertions in M test cases)": every case of the shard, and no other.
  count=$(sed -n 's/^All tests passed (.* in \([0-9]*\) test cases\{0,1\})$/\1/p' "build/asan/shard-$s.log")
  ran=$((ran + ${count:-0}))
done
if [ "$failed" -ne 0 ] || [ "$ran" -ne ${#names[@]} ]; then
  echo "sanitize: FAILED ($ran of ${#names[@]} test cases passed; logs above)" >&2
  exit 1
fi
echo "sanitize: all ${#names[@]} test cases passed under ASan and UBSan ($shards processes)"
