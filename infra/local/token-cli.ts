/**
 * `npm run --silent token -- --user 42 [--expires-in 3600]`: prints a bearer token from the
 * local identity provider, and nothing else, on stdout.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parseUserId } from '#shared/http/user-id.ts';
import { loadIdentityProvider } from './identity-provider.ts';
import { DEFAULT_DATA_DIR } from './local-stage.ts';

const USAGE = 'usage: npm run --silent token -- --user <positive integer> [--expires-in <seconds>]';

function fail(message: string): never {
  console.error(`token: ${message}\n${USAGE}`);
  process.exit(2);
}

let values: { user?: string; 'expires-in'?: string; help?: boolean };
try {
  ({ values } = parseArgs({
    options: {
      user: { type: 'string', short: 'u' },
      'expires-in': { type: 'string', default: '3600' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  }));
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
if (values.help === true) {
  console.log(USAGE);
  process.exit(0);
}
const user = values.user ?? fail('--user is required');
const userId = parseUserId(user) ?? fail(`--user must be a positive integer, got "${user}"`);
const expiresIn = values['expires-in'] ?? '3600';
if (!/^-?[0-9]+$/.test(expiresIn)) fail(`--expires-in must be whole seconds, got "${expiresIn}"`);

const provider = await loadIdentityProvider(
  resolve(process.env.LOCAL_DATA_DIR ?? DEFAULT_DATA_DIR),
);
console.log(await provider.issueToken({ userId, expiresIn: Number(expiresIn) }));
