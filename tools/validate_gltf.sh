#!/usr/bin/env bash
# Validate a .glb with the Khronos glTF validator (npm package gltf-validator, installed once
# into ~/.cache/sandbox-gltf-validator). Usage: tools/validate_gltf.sh out.glb
# Prints the number of errors, warnings, infos, hints and animations; exits 1 when there is an
# error.
set -euo pipefail
file="$(realpath "$1")"
dir="${XDG_CACHE_HOME:-$HOME/.cache}/sandbox-gltf-validator"
if [ ! -d "$dir/node_modules/gltf-validator" ]; then
  mkdir -p "$dir"
  (cd "$dir" && npm install --silent --no-audit --no-fund gltf-validator@2.0.0-dev.3.10 >/dev/null)
fi
cd "$dir"
node -e '
const fs = require("fs"); const v = require("gltf-validator");
v.validateBytes(new Uint8Array(fs.readFileSync(process.argv[1]))).then(r => {
  const i = r.issues;
  console.log(`${process.argv[1]}: ${i.numErrors} errors, ${i.numWarnings} warnings, ${i.numInfos} infos, ${i.numHints} hints, ${(r.info && r.info.animationCount) || 0} animations`);
  for (const m of i.messages.filter(m => m.severity < 2).slice(0, 20)) console.log(`  ${m.code} ${m.pointer}: ${m.message}`);
  process.exit(i.numErrors > 0 ? 1 : 0);
});' "$file"
