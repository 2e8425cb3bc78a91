import { ResourceNotFoundException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import * as z from 'zod';
import { TrailUnavailable } from '../../domain/outcome.ts';
import { logger } from '../../logger.ts';
import { ROLES } from '../../groups/group.ts';
import type { AdapterSources } from '../../storage/adapter-sources.ts';
import {
  ACCESS_ACTIONS,
  ACCESS_OUTCOMES,
  type AccessEntry,
  followedFileOf,
  refusalSlot,
  scopeOf,
  type TrailScope,
} from '../access-entry.ts';

/**
 * How an access entry is stored, in the trail's own table (docs/data-model.md, "The access
 * trail"). Written and read only through this module: the keys, the two indexes' attributes,
 * the TTL, and the conditional put every writer uses, its own or another feature's
 * transaction.
 */

/** The table's key: whose trail (`scope`), then when and which entry (`entry`). */
export const TRAIL_KEY = { partition: 'scope', sort: 'entry' } as const;

/**
 * Its global secondary indexes, both projecting every attribute: `ByTime` for sealing and
 * export by time, a day's entries spread over 16 shards by their id (no hot partition when a
 * room downloads at once); `ByFile`, sparse, for a file's owner. `file` is a DynamoDB reserved
 * word: an expression names it by a placeholder (`#file`).
 */
export const TRAIL_INDEXES = {
  ByTime: { partition: 'time_shard', sort: 'entry' },
  ByFile: { partition: 'file', sort: 'entry' },
} as const;
export type TrailIndex = keyof typeof TRAIL_INDEXES;

/** The TTL attribute: epoch seconds, the entry's time plus the retention. */
export const TRAIL_EXPIRY_ATTRIBUTE = 'expiration';

/** How many shards a day's entries spread over in `ByTime`: one per hex digit. */
const TIME_SHARDS = 16;

/** The trail's table, as a writer needs it. */
export interface TrailTable {
  readonly tableName: string;
  readonly retentionDays: number;
}

export const trailTableOf = (
  sources: Pick<AdapterSources, 'TRAIL_TABLE_NAME' | 'ACCESS_TRAIL_RETENTION_DAYS'>,
): TrailTable => ({
  tableName: sources.TRAIL_TABLE_NAME,
  retentionDays: sources.ACCESS_TRAIL_RETENTION_DAYS,
});

/** A scope as its partition key: `DEAL#<g>#<d>`, `GROUP#<g>`, `USER#<u>`. */
export function scopeKey(scope: TrailScope): string {
  switch (scope.kind) {
    case 'deal':
      return `DEAL#${scope.groupId}#${scope.dealId}`;
    case 'group':
      return `GROUP#${scope.groupId}`;
    case 'user':
      return `USER#${scope.userId}`;
  }
}

/** A file as `ByFile`'s partition key. */
export const fileKey = (fileId: number): string => `FILE#${fileId}`;

/**
 * An entry's sort key: `<at>#<id>`; a refusal's, `<minute>#refused#<user>#<slot>`, the slot its
 * request took of its caller's (`refusalSlotPut`).
 */
function entryKey(entry: AccessEntry): string {
  if (entry.outcome === 'allowed') return `${entry.at}#${entry.id}`;
  if (entry.userId === undefined || entry.requestId === undefined) {
    throw new Error('A refused access is recorded for a user and a request');
  }
  return `${entry.at.slice(0, 16)}#refused#${entry.userId}#${refusalSlot(entry.requestId)}`;
}

/** `<yyyy-mm-dd>#<n>`, n in 0..15: the entry's day, and its id's first hex digit. */
const timeShard = (entry: Pick<AccessEntry, 'at' | 'id'>): string =>
  `${entry.at.slice(0, 10)}#${parseInt(entry.id.slice(0, 1), 16) % TIME_SHARDS}`;

/** Every `ByTime` partition of a day (`yyyy-mm-dd`): where each of its entries is. */
export const timeShardsOf = (day: string): string[] =>
  Array.from({ length: TIME_SHARDS }, (_, shard) => `${day}#${String(shard)}`);

const id = z.number().int().positive();

const ACCESS_ENTRY_ITEM = z.object({
  [TRAIL_KEY.partition]: z.string(),
  [TRAIL_KEY.sort]: z.string(),
  [TRAIL_INDEXES.ByTime.partition]: z.string(),
  [TRAIL_INDEXES.ByFile.partition]: z.string().optional(),
  [TRAIL_EXPIRY_ATTRIBUTE]: z.number().int(),
  at: z.iso.datetime({ precision: 3 }),
  id: z.string().regex(/^[0-9a-f]{32}$/),
  action: z.enum(ACCESS_ACTIONS),
  outcome: z.enum(ACCESS_OUTCOMES),
  status: z.number().int().optional(),
  actor: z.enum(['user', 'operator']),
  user_id: id.optional(),
  group_id: id.optional(),
  deal_id: id.optional(),
  file_id: id.optional(),
  owner_id: id.optional(),
  room_id: z.string().optional(),
  source_file_id: id.optional(),
  source_user_id: id.optional(),
  member_id: id.optional(),
  role: z.enum(ROLES).optional(),
  previous_role: z.enum(ROLES).optional(),
  request_id: z.string().optional(),
  source_ip: z.string().optional(),
  user_agent: z.string().optional(),
});
export type AccessEntryItem = z.infer<typeof ACCESS_ENTRY_ITEM>;

const DAY_SECONDS = 86_400;

/** The entry as its item: keys, index attributes, TTL, and its fields under their stored names. */
function toAccessEntryItem(entry: AccessEntry, retentionDays: number): AccessEntryItem {
  const followed = followedFileOf(entry);
  // Fields that do not apply are undefined here and absent in the table (DOCUMENT_TRANSLATION).
  return {
    [TRAIL_KEY.partition]: scopeKey(scopeOf(entry)),
    [TRAIL_KEY.sort]: entryKey(entry),
    [TRAIL_INDEXES.ByTime.partition]: timeShard(entry),
    ...(followed === undefined ? {} : { [TRAIL_INDEXES.ByFile.partition]: fileKey(followed) }),
    [TRAIL_EXPIRY_ATTRIBUTE]: Math.floor(Date.parse(entry.at) / 1000) + retentionDays * DAY_SECONDS,
    at: entry.at,
    id: entry.id,
    action: entry.action,
    outcome: entry.outcome,
    status: entry.status,
    actor: entry.actor,
    user_id: entry.userId,
    group_id: entry.groupId,
    deal_id: entry.dealId,
    file_id: entry.fileId,
    owner_id: entry.ownerId,
    room_id: entry.roomId,
    source_file_id: entry.sourceFileId,
    source_user_id: entry.sourceUserId,
    member_id: entry.memberId,
    role: entry.role,
    previous_role: entry.previousRole,
    request_id: entry.requestId,
    source_ip: entry.sourceIp,
    user_agent: entry.userAgent,
  };
}

/** The entry an item holds; an item that does not match the schema is a fault. */
export function fromAccessEntryItem(raw: Record<string, unknown>): AccessEntry {
  const item = ACCESS_ENTRY_ITEM.parse(raw);
  return {
    at: item.at,
    id: item.id,
    action: item.action,
    outcome: item.outcome,
    status: item.status,
    actor: item.actor,
    userId: item.user_id,
    groupId: item.group_id,
    dealId: item.deal_id,
    fileId: item.file_id,
    ownerId: item.owner_id,
    roomId: item.room_id,
    sourceFileId: item.source_file_id,
    sourceUserId: item.source_user_id,
    memberId: item.member_id,
    role: item.role,
    previousRole: item.previous_role,
    requestId: item.request_id,
    sourceIp: item.source_ip,
    userAgent: item.user_agent,
  };
}

/**
 * The conditional put of an entry, as a transaction item: a change's repository adds it to
 * the change's own TransactWriteItems, so the change and its entry land together or not at
 * all. It never replaces an entry (`attribute_not_exists`).
 */
export const accessEntryPut = (trail: TrailTable, entry: AccessEntry) => ({
  Put: {
    TableName: trail.tableName,
    Item: toAccessEntryItem(entry, trail.retentionDays),
    ConditionExpression: 'attribute_not_exists(#scope)',
    ExpressionAttributeNames: { '#scope': TRAIL_KEY.partition },
  },
});

/** Where a caller's refusal slots are: a partition of their own, no trail's (`scopeKey`). */
const REFUSAL_SLOTS_PREFIX = 'REFUSALS#';

/** How long a refusal slot is kept: it bounds its minute only, so a day is ample. */
const REFUSAL_SLOT_DAYS = 1;

/**
 * The conditional put of the caller's slot a refused request takes: `REFUSALS#<user>`,
 * `<minute>#<slot>`, and a TTL. Not an entry: none of an entry's fields, nor either index's
 * attribute, so sealing, the readers and the export never meet it (`isRefusalSlotItem` tells
 * it from an entry where the whole table is read). Taken, its put fails, and with it the
 * refusal's transaction: a caller records at most `REFUSAL_SLOTS_PER_MINUTE` refused requests
 * a minute, whatever deals they name.
 */
function refusalSlotPut(trail: TrailTable, entry: AccessEntry) {
  if (entry.userId === undefined || entry.requestId === undefined) {
    throw new Error('A refused access is recorded for a user and a request');
  }
  const minute = entry.at.slice(0, 16);
  return {
    Put: {
      TableName: trail.tableName,
      Item: {
        [TRAIL_KEY.partition]: `${REFUSAL_SLOTS_PREFIX}${String(entry.userId)}`,
        [TRAIL_KEY.sort]: `${minute}#${String(refusalSlot(entry.requestId))}`,
        [TRAIL_EXPIRY_ATTRIBUTE]:
          Math.floor(Date.parse(`${minute}:00.000Z`) / 1000) + REFUSAL_SLOT_DAYS * DAY_SECONDS,
      },
      ConditionExpression: 'attribute_not_exists(#scope)',
      ExpressionAttributeNames: { '#scope': TRAIL_KEY.partition },
    },
  };
}

/**
 * A refused request's transaction: its caller's slot, then its entries (one for each deal it
 * named), all of one caller and request at one time.
 */
export function refusalPuts(trail: TrailTable, entries: readonly AccessEntry[]) {
  const [first] = entries;
  if (first === undefined) return [];
  return [refusalSlotPut(trail, first), ...entries.map((entry) => accessEntryPut(trail, entry))];
}

/** Whether a stored item is a refusal slot, no entry (`refusalSlotPut`). */
export const isRefusalSlotItem = (item: Record<string, unknown>): boolean => {
  const scope = item[TRAIL_KEY.partition];
  return typeof scope === 'string' && scope.startsWith(REFUSAL_SLOTS_PREFIX);
};

/**
 * Whether a change's transaction failed for its entries' sake, as the outcome to raise then
 * (undefined otherwise): an entry's own item cancelled (throttled, say; the entries are the
 * transaction's last items, from `firstEntryIndex` on), the trail's table named by the error
 * (access denied to it), or a table missing (the change read the service's own table a moment
 * before, so the missing one is the trail's).
 */
export function trailFaultOf(
  error: unknown,
  trail: TrailTable,
  firstEntryIndex: number,
): TrailUnavailable | undefined {
  const reasons =
    error instanceof TransactionCanceledException
      ? (error.CancellationReasons ?? []).slice(firstEntryIndex).map((reason) => reason.Code)
      : [];
  const trails =
    reasons.some(
      (code) => code !== undefined && code !== 'None' && code !== 'ConditionalCheckFailed',
    ) ||
    error instanceof ResourceNotFoundException ||
    (error instanceof Error && error.message.includes(trail.tableName));
  if (!trails) return undefined;
  logger.error('A change was not made: its access-trail entry could not be written', { error });
  return new TrailUnavailable();
}
