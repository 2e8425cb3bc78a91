/**
 * `npm run --silent token -- --user 42 [--expires-in 3600]`: prints a bearer token from the
 * local identity provider, and nothing else, on stdout.
 */
import { parseUserId } from '#shared/http/user-id.ts';
import { parseCommandLine } from '#infra/command-line.ts';
import { dataFolder } from '../stage/data-folder.ts';
import { loadIdentityProvider } from '../gateway/identity-provider.ts';

const USAGE = `usage: npm run --silent token -- --user <positive integer> [--expires-in <seconds>]

A bearer token for that user from the local identity provider, valid for --expires-in
seconds (default 3600; --expires-in=-60 gives a token that expired a minute ago). It uses the
data folder of LOCAL_DATA_DIR, else .data/.
`;

function fail(message: string): never {
  console.error(`token: ${message}\n\n${USAGE}`);
  process.exit(2);
}

const { values } = parseCommandLine(
  { user: { type: 'string', short: 'u' }, 'expires-in': { type: 'string', default: '3600' } },
  ...([USAGE, fail, { positionals: false }] as const),
);
const user = values.user ?? fail('--user is required');
const userId = parseUserId(user) ?? fail(`--user must be a positive integer, got "${user}"`);
const expiresIn = values['expires-in'];
if (!/^-?[0-9]+$/.test(expiresIn)) fail(`--expires-in must be whole seconds, got "${expiresIn}"`);

const provider = await loadIdentityProvider(dataFolder(process.env));
console.log(await provider.issueToken({ userId, expiresIn: Number(expiresIn) }));
