/**
 * `npm run --silent openapi [-- --out openapi.json]`: the OpenAPI document GET /openapi.json
 * serves, without starting anything; on stdout unless --out names a file.
 */
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { buildOpenApiDocument } from '#shared/openapi/openapi-document.ts';
import { API_ROUTES } from '#functions/service-functions.ts';

const USAGE = 'usage: npm run --silent openapi [-- --out <file>]';

let values: { out?: string; help?: boolean };
try {
  ({ values } = parseArgs({
    options: { out: { type: 'string', short: 'o' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  }));
} catch (error) {
  console.error(`openapi: ${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  process.exit(2);
}
if (values.help === true) {
  console.log(USAGE);
  process.exit(0);
}
const text = `${JSON.stringify(buildOpenApiDocument(API_ROUTES), null, 2)}\n`;
if (values.out === undefined) process.stdout.write(text);
else await writeFile(values.out, text);
