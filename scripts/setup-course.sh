#!/usr/bin/env bash
# Installs what the course-tool tests (tests/course/) need and is missing: Debian's mkdocs and
# jupyter-notebook (with apt-get when root, else prints the command). reveal.js comes from
# package-lock.json (npm ci, scripts/setup.sh). Run by scripts/test.sh, not by `npm start`.
# Idempotent: nothing is fetched when everything is there.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=()
command -v mkdocs >/dev/null || packages+=(mkdocs)
{ command -v jupyter-notebook >/dev/null && /usr/bin/python3 -c 'import nbclient, nbformat, ipykernel' 2>/dev/null; } || packages+=(jupyter-notebook)

if [ ${#packages[@]} -gt 0 ]; then
  command="apt-get update && apt-get install -y --no-install-recommends ${packages[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup-course: missing Debian packages for tests/course; run as root:  sudo sh -c '$command'" >&2
    exit 1
  fi
  echo "setup-course: installing ${packages[*]} (about a minute the first time)"
  export DEBIAN_FRONTEND=noninteractive
  # Another apt run may hold the lock (a parallel install): wait for it, then retry.
  for attempt in 1 2 3 4 5 6; do
    if apt-get -o DPkg::Lock::Timeout=120 update -qq &&
       apt-get -o DPkg::Lock::Timeout=120 install -y -qq --no-install-recommends "${packages[@]}" >/dev/null; then
      break
    fi
    [ "$attempt" -eq 6 ] && { echo "setup-course: apt-get failed 6 times" >&2; exit 1; }
    echo "setup-course: apt-get failed (locked?); retrying in 20 s" >&2
    sleep 20
  done
fi

if [ ! -f node_modules/reveal.js/dist/reveal.js ]; then
  echo "setup-course: node_modules/reveal.js is missing; run npm ci (it is a devDependency)" >&2
  exit 1
fi
