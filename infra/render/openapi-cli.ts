/**
 * `npm run --silent openapi [-- --out openapi.json]`: the OpenAPI document GET /openapi.json
 * serves, without starting anything; on stdout unless --out names a file. The settings that
 * judge requests are read from the environment as `npm start` reads them (their defaults when
 * unset), so the document is the one a stage with those values serves.
 */
import { writeFile } from 'node:fs/promises';
import { buildOpenApiDocument } from '#shared/openapi/openapi-document.ts';
import {
  ConfigError,
  readEnvironment,
  REQUEST_SETTINGS,
  type RequestSettings,
} from '#shared/config/environment.ts';
import { API_ROUTES } from '#functions/service-functions.ts';
import { parseCommandLine } from '#infra/command-line.ts';

const USAGE = 'usage: npm run --silent openapi [-- --out <file>]\n';

function fail(message: string): never {
  process.stderr.write(`openapi: ${message}\n\n${USAGE}`);
  process.exit(2);
}

const { values } = parseCommandLine({ out: { type: 'string', short: 'o' } }, USAGE, fail, {
  positionals: false,
});
let settings: RequestSettings;
try {
  settings = readEnvironment(REQUEST_SETTINGS);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  fail(error.message);
}
const text = `${JSON.stringify(buildOpenApiDocument(API_ROUTES, settings), null, 2)}\n`;
if (values.out === undefined) process.stdout.write(text);
else await writeFile(values.out, text);
