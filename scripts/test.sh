#!/usr/bin/env bash
# Runs every test: native (Catch2 via CTest), the WASM engine under node, the page in Chromium.
# `npm test` runs this alone: it installs and builds first, and prints a table of where the time went.
#
# The native suites need nothing of the WASM build or the page: they run beside the rest, at the
# lowest priority (nice 19), on what the WASM build, node and Chromium leave of the cores (a build's
# last links, the end of each node --test run, the course tools, which run one at a time). Their
# output goes to build/native-suites.log, printed at the end; the table gives their own times.
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
native_log=build/native-suites.log
native_times=build/native-suites.times
native_pid=
print_timings() {
  if [ -n "$native_pid" ] && kill -0 "$native_pid" 2>/dev/null; then
    kill -TERM -- "-$native_pid" 2>/dev/null || true # a failure above: the native suites stop too
  fi
  echo
  echo "npm test: where the time went"
  printf '  %s\n' "${timings[@]}"
  if [ -s "$native_times" ]; then
    echo "  beside the rows above, at nice 19:"
    sed 's/^/    /' "$native_times"
  fi
  printf '  %-34s %5d s\n' total "$SECONDS"
}
trap print_timings EXIT

suite "setup (apt, npm ci)" bash scripts/setup.sh
# The README's course recipes need Debian mkdocs and jupyter-notebook (installed when missing).
suite "course setup (apt)" bash scripts/setup-course.sh

# The Catch2 suite, built once (clang, build/asan) and every case run under ASan + UBSan; each
# fuzz corpus input once, built there too. Each step's wall time goes to $native_times. (A plain
# build would run the same cases again: `ctest --test-dir build/native` is there for a quick
# edit-and-run, README "Tests".)
native_suites() {
  local start
  step() {
    start=$SECONDS
    "${@:2}"
    printf '%-32s %5d s\n' "$1" $((SECONDS - start)) >>"$native_times"
  }
  step "native, sanitized (build, run)" bash scripts/sanitize.sh
  step "fuzz corpus replay" bash scripts/fuzz.sh --replay
}
mkdir -p build
: >"$native_times"
# In a process group of its own (job control on), so that a failure below stops it and its builds.
set -m
(renice -n 19 -p "$BASHPID" >/dev/null; native_suites) >"$native_log" 2>&1 &
native_pid=$!
set +m

suite "build (engine, page)" bash scripts/build.sh
# Every JS file as Prettier writes it, no line over 120 characters (node scripts/format.mjs fixes the first).
suite "format check" node scripts/format.mjs --check

# Two files at a time on two cores (node's default is one fewer than the cores): each browser test
# file opens its own Chromium and its tests their own documents, so files do not share state.
suite "node: model, wasm, package" node --test --test-concurrency=2 tests/model/ tests/wasm/ tests/package/
# One Chromium for every browser file (scripts/chromium-server.mjs): each connects to it
# (ATTENTION_CHROMIUM) rather than launching its own, 1.4 CPU-seconds a file.
browser_suite() {
  local endpoint=build/chromium.endpoint status=0
  : >"$endpoint"
  node scripts/chromium-server.mjs >"$endpoint" &
  local server=$!
  until [ -s "$endpoint" ] || ! kill -0 "$server" 2>/dev/null; do sleep 0.1; done
  ATTENTION_CHROMIUM=$(cat "$endpoint") node --test --test-concurrency=2 tests/browser/ || status=$?
  kill -TERM "$server" 2>/dev/null && wait "$server" || true
  return "$status"
}
suite "browser" browser_suite
# The README's course recipes for real: MkDocs, a reveal.js deck, a Jupyter notebook.
suite "course tools" node --test --test-concurrency=1 tests/course/

start=$SECONDS
native_status=0
wait "$native_pid" || native_status=$?
native_pid=
timings+=("$(printf '%-34s %5d s' "native suites: waited for" $((SECONDS - start)))")
cat "$native_log"
if [ "$native_status" -ne 0 ]; then
  echo "npm test: the native suites failed (exit $native_status; $native_log, above)" >&2
  exit "$native_status"
fi
