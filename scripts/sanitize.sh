#!/usr/bin/env bash
# The native suite built with clang and run under ASan (leaks included) and UBSan, in build/asan
# (flags: scripts/sanitize-env.sh). Any report fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/sanitize-env.sh

configure_sanitized build/asan
cmake --build build/asan --target native_tests -j "$(nproc)"
ctest --test-dir build/asan --no-tests=error --output-on-failure -j "$(nproc)"
