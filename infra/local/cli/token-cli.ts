/**
 * `npm run --silent token -- --user 42 [--expires-in 3600]`: prints a bearer token from the
 * local identity provider, and nothing else, on stdout.
 */
import { parseUserId } from '#shared/http/user-id.ts';
import { parseCommandLine } from '#infra/command-line.ts';
import { AmbiguousDataFolder, chooseDataFolder, stageHome } from '../stage/data-folder.ts';
import { loadIdentityProvider } from '../gateway/identity-provider.ts';

const USAGE = `usage: npm run --silent token -- --user <positive integer> [--expires-in <seconds>]

A bearer token for that user from the local identity provider, valid for --expires-in
seconds (default 3600; a negative value gives a token that has already expired). It uses the
data folder of LOCAL_DATA_DIR, else of the one running \`npm start\`, else .data/.
`;

function fail(message: string): never {
  console.error(`token: ${message}\n\n${USAGE}`);
  process.exit(2);
}

/** `--expires-in -60` as `--expires-in=-60`: parseArgs takes a leading dash for an option. */
const args = process.argv.slice(2).flatMap((arg, i, all) => {
  if (all[i - 1] === '--expires-in' && /^-[0-9]+$/.test(arg)) return [];
  if (arg === '--expires-in' && /^-[0-9]+$/.test(all[i + 1] ?? '')) {
    return [`--expires-in=${all[i + 1] ?? ''}`];
  }
  return [arg];
});

const { values } = parseCommandLine(
  { user: { type: 'string', short: 'u' }, 'expires-in': { type: 'string', default: '3600' } },
  ...([USAGE, fail, { args, positionals: false }] as const),
);
const user = values.user ?? fail('--user is required');
const userId = parseUserId(user) ?? fail(`--user must be a positive integer, got "${user}"`);
const expiresIn = values['expires-in'];
if (!/^-?[0-9]+$/.test(expiresIn)) fail(`--expires-in must be whole seconds, got "${expiresIn}"`);

const choice = await chooseDataFolder(process.env, stageHome(process.env)).catch(
  (error: unknown) => {
    if (!(error instanceof AmbiguousDataFolder)) throw error;
    console.error(`token: ${error.message}`);
    process.exit(2);
  },
);
if (choice.notice !== undefined) console.error(`token: ${choice.notice}`);
const provider = await loadIdentityProvider(choice.dataDir);
console.log(await provider.issueToken({ userId, expiresIn: Number(expiresIn) }));
