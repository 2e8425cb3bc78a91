import { describe, expect, it } from 'vitest';
import { tableUnder } from '#test/support/markdown-table.ts';
import { GRANT_ROWS } from './grant-table.ts';

describe('docs/deploying.md', () => {
  it('shows each function’s grants as its declaration makes them (node test/infra/grant-table.ts)', () => {
    expect(tableUnder('docs/deploying.md', '## Least privilege')).toEqual(
      GRANT_ROWS.map((row) => [...row]),
    );
  });
});
