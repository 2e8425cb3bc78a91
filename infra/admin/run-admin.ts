import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { isOutcome } from '#shared/domain/outcome.ts';
import { optionMistake } from '#infra/command-line.ts';
import { OperatorRefusal } from './operator-refusal.ts';
import { STAGE_NAMES, type StageName } from '../stages.ts';
import { COMMANDS } from './commands.ts';
import { type Command, Findings, Streamed } from './operator-command.ts';
import { portsOn } from './operator-ports.ts';
import { stageTarget } from './stage-target.ts';

export interface AdminIo {
  readonly env: NodeJS.ProcessEnv;
  /** The command's result: JSON, and nothing else, so scripts can parse it. */
  out(text: string): void;
  /**
   * A streamed result's next chunk, as is: settles once the output has taken it, so a slow
   * reader slows the command instead of filling its memory. Without it, `out` takes each.
   */
  write?(chunk: string): Promise<void>;
  /** What went wrong, for the operator. */
  err(text: string): void;
}

/**
 * Exit codes: 0 done; 1 refused (a missing referent, a duplicate), or failed (the stage could
 * not be reached, say); 2 bad usage; 3 done, and found something to look at (reconcile).
 */
const EXIT = { ok: 0, refused: 1, usage: 2, findings: 3 } as const;

const USAGE = `usage: npm run --silent admin -- <command> [--stage local|development|production]

The local stage (a running \`npm start\`) unless --stage names a deployed one, which is
reached with your ordinary AWS credentials and region.

commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(20)} ${c.summary}`).join('\n')}

\`<command> --help\` shows a command's flags. Each prints its result as JSON on stdout.
Exit codes: 0 done, 1 refused or failed (nothing was changed unless it says so), 2 bad usage,
3 done and found something (reconcile).
`;

const STAGE_FLAG = [
  '--stage <stage>',
  'local (default: the running `npm start`), development or production',
] as const;

/** What `<command> --help` prints: its flags in one column, with --stage, then its note. */
function commandHelp(command: Command): string {
  const flags = [...command.help.flags, STAGE_FLAG];
  const width = Math.max(...flags.map(([flag]) => flag.length)) + 3;
  const { note } = command.help;
  return [
    `usage: npm run --silent admin -- ${command.usage} [--stage <stage>]`,
    '',
    command.summary,
    '',
    'flags:',
    ...flags.map(([flag, meaning]) => `  ${flag.padEnd(width)}${meaning}`),
    ...(note === undefined ? [] : ['', note]),
    '',
  ].join('\n');
}

const ALL_SWITCHES = new Set(COMMANDS.flatMap((c) => c.switches));
const ALL_FLAGS = new Set(COMMANDS.flatMap((c) => c.flags).filter((f) => !ALL_SWITCHES.has(f)));
const COMMON_OPTIONS = {
  stage: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsOptionsConfig;
/** Every command's options: what the words are read with before the command is known. */
const ALL_OPTIONS: ParseArgsOptionsConfig = {
  ...Object.fromEntries([...ALL_FLAGS].map((flag) => [flag, { type: 'string' as const }])),
  ...Object.fromEntries([...ALL_SWITCHES].map((flag) => [flag, { type: 'boolean' as const }])),
  ...COMMON_OPTIONS,
};

/** The options one command takes: its flags, its switches, --stage and --help. */
const optionsOf = (command: Command): ParseArgsOptionsConfig => ({
  ...Object.fromEntries(
    command.flags.map((flag) => [
      flag,
      { type: command.switches.includes(flag) ? ('boolean' as const) : ('string' as const) },
    ]),
  ),
  ...COMMON_OPTIONS,
});

/** Runs one operator command; prints its result as JSON. Never throws. */
export async function runAdmin(args: readonly string[], io: AdminIo): Promise<number> {
  const usage = (message: string, text = USAGE) => {
    io.err(`admin: ${message}\n\n${text}`);
    return EXIT.usage;
  };
  const { values, positionals, tokens } = readFlags(args);
  // A command is one word or two (`reconcile`, `group add`); what follows is stray.
  const command = COMMANDS.find(
    (c) => positionals.slice(0, c.name.split(' ').length).join(' ') === c.name,
  );
  const name = command?.name ?? positionals.slice(0, 2).join(' ');
  if (values.help === true && name === '') {
    io.out(USAGE);
    return EXIT.ok;
  }
  if (command === undefined) {
    // `--grp 7` alone: the mistake is the flag, not a command named "7".
    const mistake = optionMistake(args, ALL_OPTIONS);
    if (mistake !== undefined) return usage(mistake);
    return usage(name === '' ? 'name a command' : `unknown command "${name}"`);
  }
  if (values.help === true) {
    io.out(commandHelp(command));
    return EXIT.ok;
  }
  // A flag this command does not take is named with the command, beside its flags.
  const mistake = optionMistake(args, optionsOf(command));
  if (mistake !== undefined) return usage(`${name}: ${mistake}`, commandHelp(command));
  const stray = positionals[command.name.split(' ').length];
  if (stray !== undefined) {
    return usage(`unexpected argument "${stray}" (quote a value that has spaces)`);
  }
  const given = tokens.flatMap((token) => (token.kind === 'option' ? [token.name] : []));
  const repeated = given.find((flag, i) => given.indexOf(flag) !== i);
  if (repeated !== undefined) return usage(`--${repeated} is given more than once`);
  const stage = (values.stage ?? 'local') as StageName;
  if (!STAGE_NAMES.includes(stage)) {
    return usage(`--stage must be one of ${STAGE_NAMES.join(', ')}, got "${stage}"`);
  }
  const flags: Record<string, string | undefined> = {};
  for (const [flag, value] of Object.entries(values)) {
    if (flag === 'stage' || flag === 'help') continue;
    flags[flag] = value === true ? 'true' : (value as string);
  }
  const checked = command.parse(flags);
  if (!checked.ok) return usage(`${name}: ${checked.errors.join('; ')}`, commandHelp(command));

  let target: Awaited<ReturnType<typeof stageTarget>> | undefined;
  try {
    target = await stageTarget(stage, io.env);
    const result = await checked.run(portsOn(target));
    if (result instanceof Streamed) {
      const write =
        io.write?.bind(io) ??
        ((chunk: string) => {
          io.out(chunk.replace(/\n$/, ''));
          return Promise.resolve();
        });
      for await (const chunk of result.chunks) await write(chunk);
      return EXIT.ok;
    }
    const found = result instanceof Findings;
    io.out(JSON.stringify(found ? result.report : result, null, 2));
    return found ? EXIT.findings : EXIT.ok;
  } catch (error) {
    // The CLI's own refusals and the use cases' outcomes read alike: what is wrong, and
    // that it changed nothing.
    if (error instanceof OperatorRefusal || isOutcome(error)) {
      io.err(`admin: ${name}: ${error.message}; nothing was changed`);
    } else {
      io.err(`admin: ${name} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    return EXIT.refused;
  } finally {
    target?.close();
  }
}

/**
 * Every command's flags, read leniently: a flag another command takes, or none does, is
 * found by `optionMistake` once the command is known, and named with it.
 */
function readFlags(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    options: ALL_OPTIONS,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
}
