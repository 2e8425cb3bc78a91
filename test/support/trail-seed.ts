/**
 * Entries seeded straight into a trail's table, as the trail's own item module stores them:
 * the readers' tests need no writer to have run.
 */
import { randomBytes } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  type AccessEntry,
  type Actor,
  type EntryFacts,
  newAccessEntry,
  OPERATOR,
  type Requester,
} from '#shared/access-trail/access-entry.ts';
import { accessEntryPut } from '#shared/access-trail/adapters/access-entry-item.ts';
import { putItems } from './put-items.ts';

/** A request of `userId`'s, as a handler would describe it. */
export const requestOf = (userId: number, requestId = `req-${String(userId)}`): Requester => ({
  userId,
  requestId,
  sourceIp: '203.0.113.9',
  userAgent: 'curl/8.5.0',
});

/** An entry at `at`, by `actor` (the operator unless a user's request is given). */
export const entryAt = (at: string, facts: EntryFacts, actor: Actor = OPERATOR): AccessEntry =>
  newAccessEntry(facts, actor, {
    now: () => new Date(at),
    newEntryId: () => randomBytes(16).toString('hex'),
  });

/** Stores the entries in the trail's table, 25 a call. */
export async function seedTrail(
  client: DynamoDBDocumentClient,
  trailTableName: string,
  entries: readonly AccessEntry[],
): Promise<void> {
  const trail = { tableName: trailTableName, retentionDays: 400 };
  await putItems(
    client,
    trailTableName,
    entries.map((entry) => accessEntryPut(trail, entry).Put.Item),
  );
}

/** `count` times from `first`, one `stepMs` apart, oldest first. */
export const timesFrom = (first: string, count: number, stepMs = 1000): string[] =>
  Array.from({ length: count }, (_, n) => new Date(Date.parse(first) + n * stepMs).toISOString());
