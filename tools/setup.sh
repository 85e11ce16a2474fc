#!/usr/bin/env bash
# Set up a fresh machine for the sandbox: system libraries for offscreen rendering (Mesa EGL/GL)
# and window tests (Xvfb), then a Python 3.11 virtual environment in .venv with the project
# installed (editable) and its test tools. Safe to run again: it skips what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

need_pkgs=()
for pkg in libegl1 libegl-mesa0 libgl1 libgl1-mesa-dri libgles2 xvfb xauth; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need_pkgs+=("$pkg")
done
if [ ${#need_pkgs[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1; then
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    echo "setup: installing system packages: ${need_pkgs[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}" >/dev/null
  else
    echo "setup: please install Mesa EGL/GL and Xvfb (missing: ${need_pkgs[*]})" >&2
  fi
fi

PY="${PYTHON:-}"
if [ -z "$PY" ]; then
  for cand in python3.11 python3; do
    if command -v "$cand" >/dev/null 2>&1 && "$cand" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
      PY="$cand"; break
    fi
  done
fi
if [ -z "$PY" ]; then
  echo "setup: Python 3.11 is required (set PYTHON=/path/to/python3.11)" >&2
  exit 1
fi

if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip 2>&1 | grep -v '^WARNING: Location' || true
.venv/bin/python -m pip install -q -e '.[test]' 2>&1 | grep -v '^WARNING: Location' || true
.venv/bin/python -c 'import sandbox, pybullet, panda3d' 2>/dev/null || { echo "setup: install failed" >&2; exit 1; }
echo "setup: ready (.venv)"
