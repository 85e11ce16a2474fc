#!/usr/bin/env bash
# Validate a .glb or .gltf (with its buffers beside it) with the Khronos glTF validator (npm
# package gltf-validator, installed once into ~/.cache/sandbox-gltf-validator).
# Usage: tools/validate_gltf.sh out.glb [out.gltf ...]
# Prints the number of errors, warnings, infos, hints and animations per file and the messages
# (hints counted by code); exits 1 when a file has an error.
set -euo pipefail
dir="${XDG_CACHE_HOME:-$HOME/.cache}/sandbox-gltf-validator"
if [ ! -d "$dir/node_modules/gltf-validator" ]; then
  mkdir -p "$dir"
  (cd "$dir" && npm install --silent --no-audit --no-fund gltf-validator@2.0.0-dev.3.10 >/dev/null)
fi
files=()
for f in "$@"; do files+=("$(realpath "$f")"); done
cd "$dir"
node -e '
const fs = require("fs"); const path = require("path"); const v = require("gltf-validator");
(async () => {
  let failed = 0;
  for (const file of process.argv.slice(1)) {
    const base = path.dirname(file);
    const r = await v.validateBytes(new Uint8Array(fs.readFileSync(file)), {
      uri: path.basename(file),
      externalResourceFunction: (uri) => new Promise((ok, no) => {
        const p = path.resolve(base, decodeURIComponent(uri));
        if (path.relative(base, p).startsWith("..")) return no("outside the folder of the file");
        fs.readFile(p, (err, data) => err ? no(err.toString()) : ok(new Uint8Array(data)));
      }),
    });
    const i = r.issues;
    console.log(`${file}: ${i.numErrors} errors, ${i.numWarnings} warnings, ${i.numInfos} infos, ${i.numHints} hints, ${(r.info && r.info.animationCount) || 0} animations`);
    for (const m of i.messages.filter(m => m.severity < 2).slice(0, 20)) console.log(`  ${m.code} ${m.pointer}: ${m.message}`);
    const hints = {};
    for (const m of i.messages.filter(m => m.severity >= 2)) hints[m.code] = (hints[m.code] || 0) + 1;
    for (const [c, n] of Object.entries(hints)) console.log(`  (info/hint) ${c} x${n}`);
    if (i.numErrors > 0) failed = 1;
  }
  process.exit(failed);
})().catch(e => { console.log(`validator: ${e}`); process.exit(1); });' "${files[@]}"
