/**
 * `npm run render`: writes every generated table and file (infra/render/rendered-files.ts)
 * and names those it changed. `--check` writes nothing and exits with 1 while one is stale.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseCommandLine } from '#infra/command-line.ts';
import { REPOSITORY_ROOT } from '../local/stage/data-folder.ts';
import { renderAll } from './rendered-files.ts';

const USAGE = 'usage: npm run render [-- --check]\n';

const { values } = parseCommandLine(
  { check: { type: 'boolean' } },
  USAGE,
  (message) => {
    process.stderr.write(`render: ${message}\n\n${USAGE}`);
    process.exit(2);
  },
  { positionals: false },
);
const stale = (await renderAll()).filter(({ current, rendered }) => current !== rendered);
for (const { file, rendered } of stale) {
  if (values.check !== true) await writeFile(join(REPOSITORY_ROOT, file), rendered);
  process.stdout.write(`${values.check === true ? 'stale' : 'rendered'}: ${file}\n`);
}
if (values.check === true && stale.length > 0) process.exit(1);
