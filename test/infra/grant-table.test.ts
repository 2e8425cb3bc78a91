import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '#infra/local/paths.ts';
import { GRANT_ROWS } from './grant-table.ts';

const page = readFileSync(join(REPOSITORY_ROOT, 'docs/deploying.md'), 'utf8');

/** The rows of the first table under a heading, each row's cells trimmed. */
function tableUnder(heading: string): string[][] {
  const section = page.slice(page.indexOf(`\n${heading}\n`));
  const lines = section.split('\n');
  const start = lines.findIndex((text) => text.startsWith('|'));
  const end = lines.findIndex((text, i) => i > start && !text.startsWith('|'));
  return lines.slice(start + 2, end).map((row) =>
    row
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim()),
  );
}

describe('docs/deploying.md', () => {
  it('shows each function’s grants as its declaration makes them (node test/infra/grant-table.ts)', () => {
    expect(tableUnder('## Least privilege')).toEqual(GRANT_ROWS.map((row) => [...row]));
  });
});
