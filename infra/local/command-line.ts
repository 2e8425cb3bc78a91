import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';

/**
 * A CLI's arguments, parsed strictly with positionals allowed. `--help` (or `-h`) prints the
 * usage and exits 0; whatever parseArgs refuses goes to `fail`, the CLI's usage error.
 */
export function parseCommandLine<const O extends ParseArgsOptionsConfig>(
  options: O,
  usage: string,
  fail: (message: string) => never,
) {
  const parse = () =>
    parseArgs({
      args: process.argv.slice(2),
      allowPositionals: true,
      strict: true,
      options: { ...options, help: { type: 'boolean', short: 'h' } as const },
    });
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse();
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error));
  }
  if ((parsed.values as { help?: boolean }).help === true) {
    process.stdout.write(usage);
    process.exit(0);
  }
  return parsed;
}
