import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';

/**
 * What is wrong with the options on a command line, said plainly (`unknown option --grp`,
 * `--group needs a value`), or undefined when nothing is. parseArgs' own messages quote
 * unevenly and advise `--` for what is almost always a typo, so the options are read
 * leniently here and each one checked against its declaration.
 */
export function optionMistake(
  args: readonly string[],
  options: ParseArgsOptionsConfig,
): string | undefined {
  const { tokens } = parseArgs({
    args: [...args],
    options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const declared = Object.hasOwn(options, token.name) ? options[token.name] : undefined;
    if (declared === undefined) return `unknown option ${token.rawName}`;
    if (declared.type === 'boolean' && token.value !== undefined) {
      return `${token.rawName} takes no value`;
    }
    if (declared.type !== 'string') continue;
    if (token.value === undefined) return `${token.rawName} needs a value`;
    // parseArgs refuses `--group -3` as ambiguous, a forgotten value maybe; `-` alone is a value.
    if (!token.inlineValue && token.value.length > 1 && token.value.startsWith('-')) {
      return `${token.rawName} needs a value (one that starts with "-" is written ${token.rawName}=${token.value})`;
    }
  }
  return undefined;
}

/**
 * What a CLI reads and writes: the process's own (`process` itself is one), or a test's, which
 * runs the CLI in its own process and reads what it wrote.
 */
export interface CommandLineIo {
  readonly env: NodeJS.ProcessEnv;
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  readonly stdin: AsyncIterable<Buffer | string> & { readonly isTTY?: boolean };
}

/** A CLI ending early with its exit code: after `--help` (0), or on a usage error (2). */
class CommandLineExit extends Error {
  readonly code: number;
  constructor(code: number) {
    super(`exit ${String(code)}`);
    this.code = code;
  }
}

/** Ends a CLI's run early: `text` on stderr, then exit `code` (a usage error's 2 unless given). */
export function exitWith(io: CommandLineIo, text: string, code = 2): never {
  io.stderr.write(text);
  throw new CommandLineExit(code);
}

/** The exit code of a CLI's run: the one its body answers, or the one it ended early with. */
export async function exitCodeOf(body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof CommandLineExit) return error.code;
    throw error;
  }
}

interface CommandLineSettings {
  /** The arguments; the process's own by default. */
  readonly args?: readonly string[];
  /** Whether words other than options are taken (true by default). */
  readonly positionals?: boolean;
  /**
   * Where `--help` prints, which then ends the run with `CommandLineExit(0)` (see
   * `exitCodeOf`); without it, on the process's stdout, and the process exits 0.
   */
  readonly io?: CommandLineIo;
}

/**
 * A CLI's arguments, parsed strictly. `--help` (or `-h`) prints the usage and exits 0;
 * whatever is wrong goes to `fail`, the CLI's usage error, as `optionMistake` says it.
 */
export function parseCommandLine<const O extends ParseArgsOptionsConfig>(
  options: O,
  usage: string,
  fail: (message: string) => never,
  settings: CommandLineSettings = {},
) {
  const args = [...(settings.args ?? process.argv.slice(2))];
  const withHelp = { ...options, help: { type: 'boolean', short: 'h' } as const };
  const mistake = optionMistake(args, withHelp);
  if (mistake !== undefined) fail(mistake);
  const parse = () => parseArgs({ args, allowPositionals: true, strict: true, options: withHelp });
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse();
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error));
  }
  if ((parsed.values as { help?: boolean }).help === true) {
    if (settings.io === undefined) {
      process.stdout.write(usage);
      process.exit(0);
    }
    settings.io.stdout.write(usage);
    throw new CommandLineExit(0);
  }
  if (settings.positionals === false && parsed.positionals.length > 0) {
    fail(`unexpected argument "${parsed.positionals.join(' ')}"`);
  }
  return parsed;
}
