import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPOSITORY_ROOT } from '#infra/local/paths.ts';

/**
 * The rows of the first table under a heading of a page (a path from the repository root),
 * without its header and divider, each row's cells trimmed: what a test holds a docs table to.
 */
export function tableUnder(page: string, heading: string): string[][] {
  const text = readFileSync(join(REPOSITORY_ROOT, page), 'utf8');
  const at = text.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`${page} has no "${heading}"`);
  const lines = text.slice(at).split('\n');
  const start = lines.findIndex((line) => line.startsWith('|'));
  const end = lines.findIndex((line, i) => i > start && !line.startsWith('|'));
  return lines.slice(start + 2, end).map((row) =>
    row
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim()),
  );
}
