#!/bin/sh
# `make lighthouse`: Lighthouse (pinned in package-lock.json) against site/ served with gzip by a local
# server, in Debian's chromium, mobile settings (Lighthouse's default). Prints one row per page kind:
# performance, accessibility, best practices, SEO, then the failing audits (stderr) and the machine's
# Lighthouse benchmark index and Chromium version. LIGHTHOUSE_OUT=DIR keeps the JSON reports there.
# Not part of `make test` (slow, machine-dependent).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
site=${1:-site}
port=${LIGHTHOUSE_PORT:-8765}
chromium=${CHROMIUM:-/usr/bin/chromium}
[ -d "$here/node_modules/lighthouse" ] || (cd "$here" && npm ci --no-audit --no-fund)
python3 "$here/serve_gzip.py" "$site" "$port" & server=$!
trap 'kill $server' EXIT INT TERM
sleep 1
out=${LIGHTHOUSE_OUT:-$(mktemp -d)}
mkdir -p "$out"
printf '| page | performance | accessibility | best practices | SEO |\n| --- | ---: | ---: | ---: | ---: |\n'
for pair in home: ladder:ladder/ calculator:calculator/ scenario:scenarios/lora-7b/ gpu:gpus/h100-sxm-80g/ \
            model:models/llama-3.1-70b-inference/ comparison:compare/h100-sxm-80g-vs-a100-sxm-80g/ provider:providers/autodl/; do
  name=${pair%%:*}; path=${pair#*:}
  "$here/node_modules/.bin/lighthouse" "http://127.0.0.1:$port/$path" --quiet --output=json --output-path="$out/$name.json" \
    --chrome-path="$chromium" --chrome-flags="--headless=new --no-sandbox --disable-gpu" \
    --only-categories=performance,accessibility,best-practices,seo >/dev/null 2>&1 || { echo "| $name | lighthouse failed | | | |"; continue; }
  node -e '
    const r = require(process.argv[1]); const c = r.categories; const s = (k) => Math.round(c[k].score * 100);
    console.log(`| ${process.argv[2]} | ${s("performance")} | ${s("accessibility")} | ${s("best-practices")} | ${s("seo")} |`);
    for (const [k, cat] of Object.entries(c)) for (const ref of cat.auditRefs) {
      const a = r.audits[ref.id]; if (ref.weight > 0 && a.score !== null && a.score < 0.9) console.error(`  ${process.argv[2]} ${k}: ${a.id} (${a.title})`);
    }' "$out/$name.json" "$name"
done
node -e '
  const fs = require("fs"); const path = require("path");
  const rs = fs.readdirSync(process.argv[1]).filter((f) => f.endsWith(".json")).map((f) => require(path.join(process.argv[1], f)));
  if (!rs.length) process.exit(0);
  const bi = rs.map((r) => r.environment.benchmarkIndex).sort((a, b) => a - b);
  console.log(`\nLighthouse ${rs[0].lighthouseVersion}, ${rs[0].environment.hostUserAgent.match(/(HeadlessChrome|Chrome)\/[0-9.]+/)[0]}, benchmark index ${bi[0]}–${bi[bi.length - 1]} (median ${bi[bi.length >> 1]})`);
' "$out"
[ -n "${LIGHTHOUSE_OUT:-}" ] || rm -rf "$out"
