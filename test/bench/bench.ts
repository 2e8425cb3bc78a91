/**
 * `npm run bench [-- <part>...]`: checks its arguments before it loads anything heavy, so
 * `--help` and a typo answer at once; then runs bench-run.ts.
 */
const PARTS = {
  'cold-start': 'each function bundle imported cold, against its SDK clients alone (<= 1.25)',
  cpu: 'CPU per request of each route in process, against its floor (budget per case)',
  decoding: 'CPU per MB of JSON body by its numbers, against integers (decimals <= 2)',
  digests: 'CPU per MB of a SHA-256 (node:crypto) of 4.7 MB and of 50 MiB (reported)',
  tokens: 'a 50-room realtime token on the local stage, against its BatchGetItem (<= 1.2)',
  listing:
    '10,000 files listed on the local stage, against the raw paginated Query (<= 1.2); then ' +
    '30,000 gzipped and 200,000 in pages (reported; BENCH_BIG_ACCOUNTS=0 skips them)',
  uploads:
    'a 4 MiB multipart upload on the local stage, against a PutObject (reported); then the ' +
    'storage calls of an upload (at most one DynamoDB call more than before quotas)',
  refusals:
    'a usage read after 150 refused starts and 150 refused uploads, against one of a user ' +
    'with none (the same DynamoDB calls, no more items read)',
  downloads:
    "a deal file's download link with and without its access-trail entry (at most one " +
    'DynamoDB call more); then 100 members of the deal at once (every link and entry)',
  load: 'each route under 50 clients on the local stage (reported)',
  trail:
    "a deal's access trail of 1,000,000 entries: pages of 1,000 against the raw Query (<= 1.9), " +
    'empty pages of a sparse filter (reported), the CSV export against the raw Query (<= 1.3)',
} as const;
export type BenchPart = keyof typeof PARTS;

const USAGE = `usage: npm run bench [-- <part>...]

${Object.entries(PARTS)
  .map(([name, what]) => `  ${name.padEnd(11)}  ${what}`)
  .join('\n')}

With no part, every part in that order. Each figure is printed with its floor, their ratio
and its target; the command exits 1 when any target is missed.

Settings: BENCH_COLD_RUNS (15), BENCH_CPU_RUNS (400), BENCH_TOKEN_ROUNDS (300),
BENCH_DECODE_ROUNDS (15), BENCH_DIGEST_ROUNDS (15), BENCH_LISTING_ROUNDS (15), BENCH_ROUNDS (7), BENCH_LOAD_SECONDS (10), BENCH_TRAIL_ENTRIES (1000000), BENCH_TRAIL_PAGES (50); BENCH_PROFILE_DIR=<dir>
writes a CPU profile of the local stage's process there. Figures: docs/benchmarks.md
`;

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const unknown = args.filter((arg) => !(arg in PARTS));
if (unknown.length > 0) {
  process.stderr.write(`bench: unknown part "${unknown.join(' ')}"; nothing was run\n\n${USAGE}`);
  process.exit(2);
}

const { runBench } = await import('./bench-run.ts');
process.exitCode = await runBench(new Set(args as BenchPart[]));
