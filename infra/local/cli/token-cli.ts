/**
 * `npm run --silent token -- --user 42 [--expires-in 3600]`: prints a bearer token from the
 * local identity provider, and nothing else, on stdout.
 */
import { parseUserId } from '#shared/http/user-id.ts';
import { type CommandLineIo, exitCodeOf, exitWith, parseCommandLine } from '#infra/command-line.ts';
import { dataFolder } from '../stage/data-folder.ts';
import { loadIdentityProvider } from '../gateway/identity-provider.ts';

const USAGE = `usage: npm run --silent token -- --user <positive integer> [--expires-in <seconds>]

A bearer token for that user from the local identity provider, valid for --expires-in
seconds (default 3600; --expires-in=-60 gives a token that expired a minute ago). It signs
with the key of the stage started on LOCAL_DATA_DIR, else on .data/.
`;

/** The token CLI's run: 0 with the token printed, 1 where no stage has started, 2 on bad usage. */
export function runToken(args: readonly string[], io: CommandLineIo): Promise<number> {
  return exitCodeOf(async () => {
    const fail = (message: string) => exitWith(io, `token: ${message}\n\n${USAGE}\n`);
    const { values } = parseCommandLine(
      { user: { type: 'string', short: 'u' }, 'expires-in': { type: 'string', default: '3600' } },
      ...([USAGE, fail, { args, io, positionals: false }] as const),
    );
    const user = values.user ?? fail('--user is required');
    const userId = parseUserId(user) ?? fail(`--user must be a positive integer, got "${user}"`);
    const expiresIn = values['expires-in'];
    if (!/^-?[0-9]+$/.test(expiresIn)) {
      fail(`--expires-in must be whole seconds, got "${expiresIn}"`);
    }
    const dataDir = dataFolder(io.env);
    const noKey = `token: no local stage has started on ${dataDir} (it holds no identity key); start one with npm start, or set LOCAL_DATA_DIR to the folder of the one you started\n`;
    const provider = await loadIdentityProvider(dataDir, () => exitWith(io, noKey, 1));
    io.stdout.write(`${await provider.issueToken({ userId, expiresIn: Number(expiresIn) })}\n`);
    return 0;
  });
}

if (import.meta.main) process.exitCode = await runToken(process.argv.slice(2), process);
