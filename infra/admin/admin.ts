/**
 * `npm run --silent admin -- <command> [--stage ...]`: the operator's groups, members, deals
 * and deal files. Prints each result as JSON on stdout; see `run-admin.ts` for exit codes.
 */
import { once } from 'node:events';

// Before the service's modules load: the logger reads its level once, and only warnings
// and errors (to stderr) belong beside a result that scripts parse.
process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
const { runAdmin } = await import('./run-admin.ts');
process.exitCode = await runAdmin(process.argv.slice(2), {
  env: process.env,
  out: (text) => {
    process.stdout.write(`${text}\n`);
  },
  // A full pipe holds the export until the reader has taken what it was given.
  write: async (chunk) => {
    if (!process.stdout.write(chunk)) await once(process.stdout, 'drain');
  },
  err: (text) => {
    process.stderr.write(`${text}\n`);
  },
});
