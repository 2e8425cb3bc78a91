import { expect } from 'vitest';
import type { TestStage } from './test-stage.ts';

type Item = Record<string, unknown>;

/** ISO 8601 UTC with milliseconds: an entry's `at`. */
const AT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * A stored entry as the data model has it: the facts a test names (`scope`, `file` when it is
 * about one, then the entry's fields), and what follows from its time and id (its sort key,
 * its day's shard, its TTL at the default retention of 400 days).
 */
export function storedEntry(item: Item, facts: Item): Item {
  const at = String(item.at);
  const id = String(item.id);
  expect(at).toMatch(AT);
  expect(id).toMatch(/^[0-9a-f]{32}$/);
  return {
    entry: `${at}#${id}`,
    time_shard: `${at.slice(0, 10)}#${String(parseInt(id.slice(0, 1), 16))}`,
    expiration: Math.floor(Date.parse(at) / 1000) + 400 * 86_400,
    at,
    id,
    ...facts,
  };
}

/** The entries a call adds to the stage's trail, in the order of their keys. */
export async function entriesAddedBy(
  stage: TestStage,
  call: () => Promise<unknown>,
): Promise<Item[]> {
  const key = (item: Item) => `${String(item.scope)} ${String(item.entry)}`;
  const before = new Set((await stage.trailItems()).map(key));
  await call();
  return (await stage.trailItems())
    .filter((item) => !before.has(key(item)))
    .sort((a, b) => key(a).localeCompare(key(b)));
}
