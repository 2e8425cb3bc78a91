/**
 * `npm run --silent openapi [-- --out openapi.json]`: the OpenAPI document GET /openapi.json
 * serves, without starting anything; on stdout unless --out names a file.
 */
import { writeFile } from 'node:fs/promises';
import { buildOpenApiDocument } from '#shared/openapi/openapi-document.ts';
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
const text = `${JSON.stringify(buildOpenApiDocument(API_ROUTES), null, 2)}\n`;
if (values.out === undefined) process.stdout.write(text);
else await writeFile(values.out, text);
