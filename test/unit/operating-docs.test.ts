import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '#infra/local/stage/data-folder.ts';
import { BUSINESS_METRICS } from '#shared/observability/business-metrics.ts';

const page = readFileSync(join(REPOSITORY_ROOT, 'docs/operating.md'), 'utf8');

describe('docs/operating.md', () => {
  it('explains every metric the handlers emit, with its unit, and none they do not', () => {
    const rows = [...page.matchAll(/^\| `(\w+)` +\| (\w+) +\|/gm)].map(([, name, unit]) => [
      name,
      unit,
    ]);
    expect(rows).toEqual([
      ...Object.entries(BUSINESS_METRICS).map(([name, { unit }]) => [name, unit]),
      ['ColdStart', 'Count'],
    ]);
  });
});
