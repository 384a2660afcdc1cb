/**
 * Examples shown under each command's `--help`: a few command lines a user would type first,
 * each with what it does. One table for every command, keyed by the command's path
 * ("run", "adr new"); cli/help.test.ts checks that every command and subcommand has some and
 * that each one parses with the command's own option table.
 *
 * @module
 */

/** One example: the command line (from `goodput`) and what it does, in a few words. */
export interface CommandExample {
  command: string;
  what: string;
}

const LOCAL = 'http://localhost:8000';

export const EXAMPLES: Readonly<Record<string, readonly CommandExample[]>> = {
  run: [
    {
      command: 'goodput run',
      what: 'the embedded simulated engine: no server, no key, a baseline in seconds',
    },
    {
      command: `goodput run --url ${LOCAL} --concurrency 16 --requests 200 --slo ttft=500,tpot=50 --out runs/base`,
      what: 'a real server (vLLM, SGLang, llama.cpp, TGI), closed loop, goodput against an SLO',
    },
    {
      command: `goodput run --url ${LOCAL} --rate 3 --duration 60s --metrics-url ${LOCAL}/metrics`,
      what: "open loop at 3 requests/s for a minute, beside the server's own metrics",
    },
    {
      command: 'goodput run --time virtual --concurrency 64 --requests 2000',
      what: 'minutes of load on the embedded engine in seconds of wall time',
    },
  ],
  doctor: [
    { command: `goodput doctor --url ${LOCAL}`, what: 'check a channel step by step and name the fix' },
    {
      command: 'goodput doctor --url https://api.example.com --api-key-file key.txt --model my-model --json',
      what: 'a hosted endpoint, key from a file, the checks as JSON',
    },
    {
      command: `goodput doctor --url ${LOCAL} --progressive --slo ttft=500,tpot=100`,
      what: 'then small runs at rising load against an SLO',
    },
  ],
  experiment: [
    {
      command: 'goodput experiment plan.yaml',
      what: 'run the plan: configurations × repeated runs, servers started and stopped for you',
    },
    {
      command: 'goodput experiment plan.yaml --runs 5 --grid max-num-batched-tokens=1024,2048',
      what: 'five runs of each configuration over a grid of one serving flag',
    },
    { command: 'goodput experiment plan.yaml --resume', what: 'continue an interrupted experiment' },
    {
      command: 'goodput experiment plan.yaml --search halving --search-profile mine.json --top 3',
      what: 'search the grid in virtual time on a calibrated engine, then measure the best three',
    },
  ],
  sweep: [
    { command: 'goodput sweep', what: 'the embedded engine at concurrency 1, 2, 4 … 32: knee and capacity' },
    {
      command: `goodput sweep --url ${LOCAL} --concurrency 1,4,16,64 --slo ttft=500,tpot=50 --min-attainment 0.95`,
      what: 'capacity at SLO: the highest load where 95% of requests meet it',
    },
    {
      command: `goodput sweep --url ${LOCAL} --rate-max auto --steps 8`,
      what: 'a rate sweep (open loop), as guidellm',
    },
  ],
  merge: [
    {
      command: 'goodput merge runs/shard-0 runs/shard-1 runs/shard-2 --out runs/whole',
      what: 'the shards of one run (run --shard i/3) into the whole run, percentiles exact',
    },
  ],
  summarize: [
    {
      command: 'goodput summarize runs/killed',
      what: "rebuild a killed run's summary.json from its records",
    },
    {
      command: 'goodput summarize runs/killed --skip-corrupt',
      what: 'the same, skipping damaged lines (each one named)',
    },
  ],
  import: [
    {
      command: 'goodput import vllm-result.json --out runs/vllm',
      what: "vLLM bench serve's --save-result as a result directory every command reads",
    },
    {
      command: 'goodput import benchmarks.json#2 --out runs/guidellm',
      what: 'the third benchmark of a guidellm sweep',
    },
  ],
  compare: [
    {
      command: 'goodput compare runs/base runs/chunked',
      what: 'the second run against the first: deltas, verdicts',
    },
    {
      command: 'goodput compare runs/base runs/a runs/b --markdown',
      what: 'several candidates, Markdown for a pull request',
    },
    {
      command: 'goodput compare runs/base runs/new --fail-on-worse ttft_p99',
      what: 'exit non-zero when TTFT p99 got significantly worse',
    },
  ],
  adr: [
    {
      command: 'goodput adr new --title "Chunked prefill" --baseline runs/base --candidate runs/chunked',
      what: 'write the decision from measured runs',
    },
    {
      command: 'goodput adr enforce --config deploy/vllm.yaml',
      what: 'the deployment obeys the latest accepted ADR',
    },
  ],
  'adr new': [
    {
      command: 'goodput adr new --title "Chunked prefill" --baseline runs/base --candidate runs/chunked',
      what: 'the ADR from a baseline and one experiment: gate, rules from serving.args labels, rollback',
    },
    {
      command:
        'goodput adr new --title "Token budget" --baseline runs/base --candidate runs/b1 --candidate runs/b2 --rule max-num-batched-tokens=2048 --status accepted',
      what: 'two experiments (the better is chosen) and an explicit rule',
    },
  ],
  'adr lint': [
    { command: 'goodput adr lint', what: 'every ADR of the directory parses and concludes something' },
    { command: 'goodput adr lint docs/adr/ADR-20250102-001-chunked-prefill.md', what: 'one file' },
  ],
  'adr check': [
    {
      command: 'goodput adr check --base origin/main',
      what: 'refuse serving-parameter changes since main that come without a new ADR',
    },
  ],
  'adr enforce': [
    {
      command: 'goodput adr enforce --config deploy/vllm.yaml',
      what: 'a Kubernetes manifest against the latest ADR',
    },
    {
      command: 'goodput adr enforce --config serve.sh --adr docs/adr/ADR-20250102-001-chunked-prefill.md',
      what: 'a command line against one ADR (-np and --parallel are the same flag)',
    },
  ],
  gate: [
    {
      command: `goodput gate --url ${LOCAL} --adr docs/adr/ADR-20250102-001-chunked-prefill.md`,
      what: "rerun the ADR's workload and check its thresholds: exit 4 on a breach",
    },
    {
      command: "goodput gate --from runs/base --threshold 'p99(ttft)<500' --threshold 'error_rate<0.01'",
      what: 'thresholds on a run already measured',
    },
  ],
  report: [
    {
      command: 'goodput report runs/base runs/chunked -o report.html',
      what: 'one HTML page, charts, no network',
    },
    {
      command: 'goodput report runs/base --format markdown',
      what: 'the headline tables as Markdown on stdout',
    },
  ],
  watch: [
    { command: 'goodput watch --rounds 3', what: 'three probe rounds against the embedded engine' },
    {
      command: `goodput watch --url ${LOCAL} --every 1m --metrics-port 9464 --adr docs/adr/ADR-20250102-001-chunked-prefill.md`,
      what: "probe every minute, export Prometheus metrics, apply the ADR's rollback rule",
    },
  ],
  history: [
    { command: 'goodput history --since 24h', what: 'the trend of the last day, one line per window' },
    { command: 'goodput history --since 7d --report -o trend.html', what: 'an HTML trend page' },
  ],
  trace: [
    { command: 'goodput trace analyze mooncake.jsonl', what: 'what a trace holds before replaying it' },
  ],
  'trace analyze': [
    { command: 'goodput trace analyze mooncake.jsonl', what: 'rates, lengths and prefix reuse of a trace' },
    {
      command: 'goodput trace analyze azure.csv --trace-format azure --block-size 16',
      what: 'an Azure trace, reuse counted in 16-token blocks',
    },
  ],
  emit: [
    {
      command:
        'goodput emit prometheus-rules --adr docs/adr/ADR-20250102-001-chunked-prefill.md -o rules.yml',
      what: "alerting rules on watch's series",
    },
  ],
  'emit prometheus-rules': [
    {
      command:
        'goodput emit prometheus-rules --adr docs/adr/ADR-20250102-001-chunked-prefill.md -o rules.yml --tests',
      what: 'alerts from the ADR, and their promtool test',
    },
  ],
  'emit grafana-dashboard': [
    {
      command:
        'goodput emit grafana-dashboard --adr docs/adr/ADR-20250102-001-chunked-prefill.md -o dashboard.json',
      what: "a Grafana dashboard of watch's series with the ADR's limits",
    },
  ],
  'emit k8s-job': [
    {
      command: `goodput emit k8s-job --shards 10 --image ghcr.io/acme/goodput:0.1.0 --secret llm-key -- --url ${LOCAL} --rate 200 --requests 60000`,
      what: 'a 10-pod sharded run as an Indexed Job',
    },
  ],
  'emit k8s-watch': [
    {
      command: `goodput emit k8s-watch --image ghcr.io/acme/goodput:0.1.0 --secret llm-key -- --url ${LOCAL} --every 1m`,
      what: 'watch as a Deployment, Service and ServiceMonitor',
    },
  ],
  sim: [
    { command: 'goodput sim --port 8000', what: 'the simulated engine as an OpenAI-compatible server' },
    {
      command: 'goodput sim --port 8000 --max-num-seqs 64 --enable-chunked-prefill --fail-429 0.05',
      what: "vLLM's flags, and 5% of requests answered 429",
    },
  ],
  'sim calibrate': [
    {
      command:
        'goodput sim calibrate runs/c1-p256 runs/c8-p256 runs/c8-p2048 runs/c32-p2048 --profile h100:llama-3.1-8b -o mine.json',
      what: "fit the engine's step time to runs measured on real hardware; error on each run held out",
    },
    {
      command: 'goodput sim calibrate runs/* --profile a100x4:llama-3.1-70b --holdout c32-p2048 --json',
      what: 'hold one run out of the fit and print the report as JSON',
    },
  ],
};

/** The examples of a command by its path ("adr new"); empty when it has none. */
export function examplesOf(path: string): readonly CommandExample[] {
  return EXAMPLES[path] ?? [];
}
