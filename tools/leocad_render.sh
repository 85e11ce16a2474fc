#!/usr/bin/env bash
# Render an LDraw file with LeoCAD, headless, to a PNG: how a builder's tool sees an export.
# Usage: tools/leocad_render.sh model.mpd out.png [LDRAWDIR] [width height]
# Needs Debian's leocad and Xvfb (apt-get install -y leocad xvfb). LeoCAD draws a part it
# cannot find (in the file or the library) as a plain box, silently: look at the picture.
set -euo pipefail
model="$(realpath "$1")"
out="$(realpath -m "$2")"
lib="${3:-${LDRAWDIR:-}}"
width="${4:-800}"
height="${5:-600}"
command -v leocad >/dev/null || { echo "leocad is not installed (apt-get install -y leocad)" >&2; exit 2; }
command -v Xvfb >/dev/null || { echo "Xvfb is not installed (apt-get install -y xvfb)" >&2; exit 2; }
fifo="$(mktemp -u)"
mkfifo "$fifo"
exec 3<>"$fifo"
rm -f "$fifo"
Xvfb -displayfd 3 -screen 0 1280x1024x24 -nolisten tcp >/dev/null 2>&1 &
xpid=$!
trap 'kill "$xpid" 2>/dev/null || true' EXIT
read -r -t 20 display <&3 || { echo "Xvfb did not report a display within 20 s" >&2; exit 1; }
args=(-i "$out" -w "$width" -h "$height")
[ -n "$lib" ] && args=(-l "$(realpath "$lib")" "${args[@]}")
DISPLAY=":$display" XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}" \
  leocad "${args[@]}" "$model" 2>&1 | grep -v "^QStandardPaths" || true
[ -s "$out" ] || { echo "LeoCAD wrote no picture" >&2; exit 1; }
echo "$out"
