import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '#infra/local/stage/data-folder.ts';

const run = promisify(execFile);
const dir = await mkdtemp(join(tmpdir(), 'summary-reporter-'));
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Test files of every fate: passed and skipped, a hook that throws, an import that throws. */
const FILES = {
  'fine.test.ts':
    "import { it } from 'vitest';\nit('passes', () => {});\nit.skip('skipped', () => {});\n",
  'hook.test.ts':
    "import { beforeAll, it } from 'vitest';\nbeforeAll(() => { throw new Error('no browser'); });\nit('one', () => {});\nit('two', () => {});\n",
  'import.test.ts':
    "import { it } from 'vitest';\nthrow new Error('import failed');\nit('never', () => {});\n",
  'vitest.config.mjs': 'export default {};\n',
};

describe('the summary line CI reads', () => {
  it('counts the tests of a file that failed as a whole as failed, and a file that ran none as one', async () => {
    for (const [name, text] of Object.entries(FILES)) await writeFile(join(dir, name), text);
    const vitest = join(REPOSITORY_ROOT, 'node_modules', '.bin', 'vitest');
    const reporter = join(REPOSITORY_ROOT, 'test', 'support', 'summary-reporter.ts');
    const { stdout } = await run(
      vitest,
      ['run', '--root', dir, '--config', join(dir, 'vitest.config.mjs'), '--reporter', reporter],
      { cwd: dir },
    ).catch((error: unknown) => error as { stdout: string });
    expect(stdout.trim().split('\n').at(-1)).toBe('tests: 1 passed, 3 failed, 1 skipped');
  });
});
