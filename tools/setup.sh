#!/usr/bin/env bash
# Set up a fresh machine for the sandbox: system libraries for offscreen rendering (Mesa EGL/GL)
# and window tests (Xvfb), then a Python 3.11 virtual environment in .venv with the project
# installed (editable) and its test tools. Safe to run again: it skips what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

need_pkgs=()
# chromium: only for the tests (tests/test_report.py opens a battle report in it; skipped
# without it)
for pkg in libegl1 libegl-mesa0 libgl1 libgl1-mesa-dri libgles2 xvfb xauth chromium; do
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

# Python: $PYTHON if set; else python3.11 (pybullet 3.2.7 publishes wheels only up to CPython
# 3.11); else the newest python3.13 / python3.12 that can make a virtual environment, on which
# pip builds pybullet from source (about 15 minutes on 2 cores; needs a C++ compiler).
py_ok() {  # a CPython 3.11-3.13 with venv and ensurepip
  "$1" -c 'import sys, venv, ensurepip; sys.exit(not (3, 11) <= sys.version_info[:2] <= (3, 13))' \
    >/dev/null 2>&1
}
PY="${PYTHON:-}"
if [ -n "$PY" ]; then
  py_ok "$PY" || { echo "setup: PYTHON=$PY is not a working Python 3.11-3.13 (with venv)" >&2; exit 1; }
else
  for cand in python3.11 python3.13 python3.12 python3; do
    if command -v "$cand" >/dev/null 2>&1 && py_ok "$cand"; then
      PY="$cand"; break
    fi
  done
fi
if [ -z "$PY" ]; then
  echo "setup: Python 3.11, 3.12 or 3.13 with venv is required (3.11 preferred; on Debian/Ubuntu:" \
       "apt-get install python3.11-venv; or set PYTHON=/path/to/python3.1x)" >&2
  exit 1
fi
PYVER="$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
echo "setup: using $PY (Python $PYVER)"
if [ "$PYVER" != "3.11" ] && ! .venv/bin/python -c 'import pybullet' >/dev/null 2>&1; then
  echo "setup: pybullet 3.2.7 has no wheel for Python $PYVER: pip will build it from source," \
       "about 15 minutes on 2 cores; it needs a C++ compiler (g++ or clang++)."
  if ! command -v c++ >/dev/null 2>&1 && ! command -v g++ >/dev/null 2>&1 \
     && ! command -v clang++ >/dev/null 2>&1; then
    echo "setup: no C++ compiler found: install one (Debian/Ubuntu: apt-get install g++" \
         "python$PYVER-dev) or use Python 3.11" >&2
    exit 1
  fi
fi

if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip 2>&1 | grep -v '^WARNING: Location' || true
.venv/bin/python -m pip install -q -e '.[test]' 2>&1 | grep -v '^WARNING: Location' || true
.venv/bin/python -c 'import sandbox, pybullet, panda3d' 2>/dev/null || { echo "setup: install failed" >&2; exit 1; }
echo "setup: ready (.venv)"
