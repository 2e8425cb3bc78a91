/**
 * `npm run bench [-- <part>]`: checks its arguments before it loads anything heavy, so
 * `--help` and a typo answer at once; then runs bench-run.ts.
 */
const USAGE = `usage: npm run bench [-- <part>]

  (no part)    cold starts, uploads, tokens and load, in order; exits 1 on a missed target
  cold-start   each function's bundle and cold import against its SDK clients alone (target <= 1.3)
  load         the routes under 50 clients, on a local stage (reported, no target)

Settings: BENCH_COLD_RUNS (15), BENCH_ROUNDS (7), BENCH_TOKEN_ROUNDS (300),
BENCH_LOAD_SECONDS (10). Figures and what they mean: docs/benchmarks.md
`;
const PARTS = ['cold-start', 'load'];
const [part, ...extra] = process.argv.slice(2);
if (part === '--help' || part === '-h') {
  process.stdout.write(USAGE);
  process.exit(0);
}
if ((part !== undefined && !PARTS.includes(part)) || extra.length > 0) {
  process.stderr.write(
    `bench: unknown part "${[part, ...extra].join(' ')}"; nothing was run\n\n${USAGE}`,
  );
  process.exit(2);
}

await import('./bench-run.ts');
