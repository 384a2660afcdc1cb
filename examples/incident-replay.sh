#!/usr/bin/env bash
# Incident replay: a long shared system prompt at high concurrency, against two
# configurations of the simulated engine (`goodput sim`), measured with `goodput run`.
#
#   bad:  chunked prefill off, a large batched-token budget, tight GPU memory
#   good: chunked prefill on, --max-num-batched-tokens 2048, same memory
#
# Prints each configuration's P99 TTFT and preemptions; the last line is
#   P99 TTFT bad=<ms> good=<ms> ratio=<bad/good>
# Usage: examples/incident-replay.sh [requests]   (default 300; needs `npm run build` first)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f dist/cli/main.js ] || npm run build >/dev/null
GOODPUT=(node dist/cli/main.js)
REQUESTS="${1:-300}"
PROFILE="h100:llama-3.1-8b"
MEMORY=0.27
LOAD=(--concurrency 64 --requests "$REQUESTS" --prompt-tokens 200 --system-prompt-tokens 2000
  --max-tokens 128 --ignore-eos --seed 1 --json)
WORK="$(mktemp -d)"
SIM_PID=""
cleanup() { [ -n "$SIM_PID" ] && kill "$SIM_PID" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

# Start a simulator on a free port, wait for the URL it prints, run the load, read its metrics.
replay() {
  local name=$1
  shift
  "${GOODPUT[@]}" sim --port 0 --profile "$PROFILE" --gpu-memory-utilization "$MEMORY" --seed 1 "$@" \
    2>"$WORK/$name.sim.log" &
  SIM_PID=$!
  local url=""
  for _ in $(seq 1 100); do
    url="$(grep -o 'http://[0-9.:]*' "$WORK/$name.sim.log" | head -n1 || true)"
    [ -n "$url" ] && break
    sleep 0.1
  done
  [ -n "$url" ] || { cat "$WORK/$name.sim.log" >&2; echo "sim did not start" >&2; exit 1; }
  echo "$name: $(sed -n 1p "$WORK/$name.sim.log" | sed 's/^goodput sim: //')" >&2
  "${GOODPUT[@]}" run --url "$url" "${LOAD[@]}" --out "$WORK/$name-results" >"$WORK/$name.json"
  node -e "fetch(process.argv[1] + '/metrics').then(r => r.text()).then(t => {
    const line = t.split('\n').find(l => l.startsWith('vllm:num_preemptions_total{'));
    process.stdout.write(line ? line.split(' ').pop() : '0');
  })" "$url" >"$WORK/$name.preemptions"
  kill "$SIM_PID"
  wait "$SIM_PID" 2>/dev/null || true
  SIM_PID=""
}

replay bad --no-enable-chunked-prefill --max-num-batched-tokens 65536
replay good --enable-chunked-prefill --max-num-batched-tokens 2048

node -e "
const fs = require('fs');
const read = (n) => ({ s: JSON.parse(fs.readFileSync(process.argv[1] + '/' + n + '.json', 'utf8')),
  pre: Number(fs.readFileSync(process.argv[1] + '/' + n + '.preemptions', 'utf8')) });
const bad = read('bad'), good = read('good');
for (const [n, r] of [['bad', bad], ['good', good]])
  console.log(n + ': p99 TTFT ' + r.s.p99_ttft_ms.toFixed(1) + ' ms, p50 TTFT ' + r.s.median_ttft_ms.toFixed(1) +
    ' ms, preemptions ' + r.pre + ', completed ' + r.s.completed + ', failed ' + r.s.failed);
const ratio = bad.s.p99_ttft_ms / good.s.p99_ttft_ms;
console.log('P99 TTFT bad=' + bad.s.p99_ttft_ms.toFixed(1) + 'ms good=' + good.s.p99_ttft_ms.toFixed(1) + 'ms ratio=' + ratio.toFixed(2));
" "$WORK"
