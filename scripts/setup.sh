#!/usr/bin/env bash
# Installs what the build and tests need and is missing: Debian packages (with apt-get
# when root, else prints the command) and the npm packages pinned in package-lock.json.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=()
command -v em++ >/dev/null || packages+=(emscripten)
command -v cmake >/dev/null || packages+=(cmake)
command -v g++ >/dev/null || packages+=(g++)
[ -f /usr/include/xtensor/xtensor.hpp ] || packages+=(libxtensor-dev)
[ -f /usr/include/xtl/xtl_config.hpp ] || packages+=(xtl-dev)
[ -f /usr/include/catch2/catch.hpp ] || packages+=(catch2)
# the native tests read the numpy fixtures' JSON with it (tests/native/reference.hpp).
[ -f /usr/include/nlohmann/json.hpp ] || packages+=(nlohmann-json3-dev)
[ -x /usr/bin/chromium ] || packages+=(chromium)
# clang, with libFuzzer and the sanitizers' runtimes: scripts/sanitize.sh and scripts/fuzz.sh.
command -v clang++ >/dev/null || packages+=(clang)
compgen -G '/usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a' >/dev/null ||
  packages+=(libclang-rt-14-dev)

if [ ${#packages[@]} -gt 0 ]; then
  command="apt-get update && apt-get install -y ${packages[*]}"
  if [ "$(id -u)" -eq 0 ]; then
    echo "setup: installing ${packages[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq "${packages[@]}" >/dev/null
  else
    echo "setup: missing Debian packages; run as root:  sudo sh -c '$command'" >&2
    exit 1
  fi
fi

# npm ci only when node_modules is missing or older than the lockfile.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
