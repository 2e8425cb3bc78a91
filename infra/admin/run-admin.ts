import { parseArgs } from 'node:util';
import { isOutcome } from '#shared/domain/outcome.ts';
import { AmbiguousDataFolder } from '#infra/local/data-folder.ts';
import { OperatorRefusal } from './operator-refusal.ts';
import { STAGE_NAMES, type StageName } from '../stages.ts';
import { type Command, COMMANDS, portsOn } from './commands.ts';
import { stageTarget } from './stage-target.ts';

export interface AdminIo {
  readonly env: NodeJS.ProcessEnv;
  /** The command's result: JSON, and nothing else, so scripts can parse it. */
  out(text: string): void;
  /** What went wrong, for the operator. */
  err(text: string): void;
}

/**
 * Exit codes: 0 done; 1 refused (a missing referent, a duplicate), or failed (the stage could
 * not be reached, say); 2 bad usage.
 */
const EXIT = { ok: 0, refused: 1, usage: 2 } as const;

const USAGE = `usage: npm run --silent admin -- <command> [--stage local|development|production]

The local stage (a running \`npm start\`) unless --stage names a deployed one, which is
reached with your ordinary AWS credentials and region.

commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(20)} ${c.summary}`).join('\n')}

\`<command> --help\` shows a command's flags. Each prints its result as JSON on stdout.
Exit codes: 0 done, 1 refused or failed (nothing was changed unless it says so), 2 bad usage.
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

/** Runs one operator command; prints its result as JSON. Never throws. */
export async function runAdmin(args: readonly string[], io: AdminIo): Promise<number> {
  const usage = (message: string, text = USAGE) => {
    io.err(`admin: ${message}\n\n${text}`);
    return EXIT.usage;
  };
  let parsed: ReturnType<typeof parseFlags>;
  try {
    parsed = parseFlags(args);
  } catch (error) {
    return usage((error as Error).message);
  }
  const { values, positionals, tokens } = parsed;
  const name = positionals.slice(0, 2).join(' ');
  const command = COMMANDS.find((c) => c.name === name);
  if (values.help === true && name === '') {
    io.out(USAGE);
    return EXIT.ok;
  }
  if (command === undefined) {
    return usage(name === '' ? 'name a command' : `unknown command "${name}"`);
  }
  if (values.help === true) {
    io.out(commandHelp(command));
    return EXIT.ok;
  }
  const stray = positionals[2];
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
  const commandUsage = `usage: npm run --silent admin -- ${command.usage} [--stage <stage>]`;
  const flags: Record<string, string | undefined> = {};
  for (const [flag, value] of Object.entries(values)) {
    if (flag === 'stage' || flag === 'help') continue;
    if (!command.flags.includes(flag)) return usage(`${name} takes no --${flag}`, commandUsage);
    flags[flag] = value === true ? 'true' : (value as string);
  }
  const checked = command.parse(flags);
  if (!checked.ok) return usage(`${name}: ${checked.errors.join('; ')}`, commandUsage);

  let target: Awaited<ReturnType<typeof stageTarget>> | undefined;
  try {
    target = await stageTarget(stage, io.env, (text) => {
      io.err(`admin: ${text}`);
    });
    const result = await checked.run(portsOn(target));
    io.out(JSON.stringify(result, null, 2));
    return EXIT.ok;
  } catch (error) {
    // The CLI's own refusals and the use cases' outcomes read alike: what is wrong, and
    // that it changed nothing.
    if (error instanceof AmbiguousDataFolder) {
      io.err(`admin: ${error.message}`);
      return EXIT.usage;
    }
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

function parseFlags(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    options: {
      ...Object.fromEntries([...ALL_FLAGS].map((flag) => [flag, { type: 'string' as const }])),
      ...Object.fromEntries([...ALL_SWITCHES].map((flag) => [flag, { type: 'boolean' as const }])),
      stage: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
    tokens: true,
  });
}
