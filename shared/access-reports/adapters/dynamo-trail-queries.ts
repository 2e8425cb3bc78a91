import {
  type DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import type { AdapterSources } from '../../storage/adapter-sources.ts';
import type { DealRef } from '../../groups/group.ts';
import {
  ACCESS_ACTIONS,
  type AccessEntry,
  type TrailScope,
} from '../../access-trail/access-entry.ts';
import type {
  PlacedEntry,
  TrailFilter,
  TrailPage,
  TrailPageRequest,
  TrailPosition,
  TrailQueries,
  TrailWindow,
} from '../trail-queries.ts';
import {
  fileKey,
  fromAccessEntryItem,
  scopeKey,
  TRAIL_INDEXES,
  TRAIL_KEY,
  type TrailIndex,
} from '../../access-trail/adapters/access-entry-item.ts';

/**
 * The most items one page reads, matched or not: about 1 MB of entries a Query call, a few
 * calls. A filter that matches little answers a short page with where to go on, in bounded
 * time and reads, however long the trail.
 */
const PAGE_READ_BUDGET = 4000;

/**
 * How many items a merged export holds at once, across its trails: each trail's Query asks
 * for its share, so a group of many deals streams in as little memory as one deal.
 */
const MERGE_BUFFER = 10_000;
const MIN_MERGE_PAGE = 100;

/**
 * Every Query names its Limit, a page of a stream this many: DynamoDB stops at 1 MB anyway,
 * and DynamoDB Local without a Limit reads the whole partition for each page (seconds a page
 * at 200,000 entries, a failure at a million).
 */
const STREAM_PAGE = 2000;

type Item = Record<string, unknown>;

/** The actions on a user file, which its owner alone takes. */
const USER_FILE_ACTIONS = ACCESS_ACTIONS.filter((action) => action.startsWith('user_file.'));

/** One Query's expression: the partition, the window in the key, the rest a filter. */
interface Expression {
  readonly KeyConditionExpression: string;
  readonly FilterExpression?: string;
  readonly ExpressionAttributeNames: Record<string, string>;
  readonly ExpressionAttributeValues: Record<string, unknown>;
}

/** Where a read goes: the table or an index, its partition, and how a page goes on. */
interface Partition {
  readonly index?: TrailIndex;
  readonly value: string;
  /** The position of an item, as a page's `next` carries it. */
  readonly positionOf: (key: Item) => TrailPosition;
  /** The key a page starts after. */
  readonly startAfter: (position: TrailPosition) => Item;
}

/**
 * The window as the key can hold it. A refusal is filed by its minute (`<minute>#refused#…`),
 * so the key's lower bound is the window's first minute, and the filter on `at` is exact. An
 * entry's key starts with its time, so `< until` holds every entry before it. Undefined when
 * the window is empty.
 */
function keyRange(window: TrailWindow): { low?: string; high?: string } | undefined {
  const low = window.since?.slice(0, 16);
  const high = window.until;
  if (low !== undefined && high !== undefined && low > high) return undefined;
  return { ...(low === undefined ? {} : { low }), ...(high === undefined ? {} : { high }) };
}

function expressionOf(
  partition: Partition,
  range: { low?: string; high?: string },
  filter: TrailFilter,
): Expression {
  const key = partition.index === undefined ? TRAIL_KEY : TRAIL_INDEXES[partition.index];
  const names: Record<string, string> = { '#p': key.partition };
  if (range.low !== undefined || range.high !== undefined) names['#e'] = key.sort;
  const values: Record<string, unknown> = { ':p': partition.value };
  let keyCondition = '#p = :p';
  if (range.low !== undefined && range.high !== undefined) {
    keyCondition += ' AND #e BETWEEN :low AND :high';
  } else if (range.low !== undefined) {
    keyCondition += ' AND #e >= :low';
  } else if (range.high !== undefined) {
    keyCondition += ' AND #e < :high';
  }
  if (range.low !== undefined) values[':low'] = range.low;
  if (range.high !== undefined) values[':high'] = range.high;
  const filters: string[] = [];
  const equal = (attribute: string, value: unknown) => {
    names[`#${attribute}`] = attribute;
    values[`:${attribute}`] = value;
    filters.push(`#${attribute} = :${attribute}`);
  };
  if (filter.since !== undefined) {
    names['#at'] = 'at';
    values[':since'] = filter.since;
    filters.push('#at >= :since');
  }
  if (filter.until !== undefined) {
    names['#at'] = 'at';
    values[':until'] = filter.until;
    filters.push('#at < :until');
  }
  if (filter.fileId !== undefined) equal('file_id', filter.fileId);
  if (filter.userId !== undefined) equal('user_id', filter.userId);
  if (filter.outcome !== undefined) equal('outcome', filter.outcome);
  if (filter.actions !== undefined) {
    names['#action'] = 'action';
    const placeholders = filter.actions.map((action, n) => {
      values[`:action${String(n)}`] = action;
      return `:action${String(n)}`;
    });
    filters.push(`#action IN (${placeholders.join(', ')})`);
  }
  return {
    KeyConditionExpression: keyCondition,
    ...(filters.length === 0 ? {} : { FilterExpression: filters.join(' AND ') }),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/**
 * Where a newest-first page starts, given the position a client sent: a position newer than
 * the window starts at its newest end, one older than it has nothing left. (DynamoDB refuses
 * a start key outside the key condition, and a client may change the window between pages.)
 */
function startWithin(
  position: TrailPosition | undefined,
  sortOf: (position: TrailPosition) => string,
  range: { low?: string; high?: string },
): { from: TrailPosition | undefined } | 'past-the-end' {
  if (position === undefined) return { from: undefined };
  const sort = sortOf(position);
  if (range.low !== undefined && sort < range.low) return 'past-the-end';
  if (range.high !== undefined && sort >= range.high) return { from: undefined };
  return { from: position };
}

/** An entry's position in the table: its sort key (the scope is the query's). */
const tablePartition = (scope: string): Partition => ({
  value: scope,
  positionOf: (key) => String(key[TRAIL_KEY.sort]),
  startAfter: (position) => ({ [TRAIL_KEY.partition]: scope, [TRAIL_KEY.sort]: position }),
});

/**
 * An entry's position in `ByFile`: its sort key and its scope (the table's key, which an
 * index's start key needs), `<entry> <scope>`; neither holds a space.
 */
const filePartition = (fileId: number): Partition => {
  const file = fileKey(fileId);
  return {
    index: 'ByFile',
    value: file,
    positionOf: (key) => `${String(key[TRAIL_KEY.sort])} ${String(key[TRAIL_KEY.partition])}`,
    startAfter: (position) => {
      const [entry = '', scope = ''] = position.split(' ');
      return {
        [TRAIL_INDEXES.ByFile.partition]: file,
        [TRAIL_KEY.sort]: entry,
        [TRAIL_KEY.partition]: scope,
      };
    },
  };
};
const sortOfFilePosition = (position: TrailPosition): string => position.split(' ')[0] ?? '';

/**
 * The trail's queries on its DynamoDB table. Newest-first pages read the table strongly
 * consistent (an entry just written shows); `ByFile` is an index, eventually consistent.
 */
class DynamoTrailQueries implements TrailQueries {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly readBudget: number;

  constructor(client: DynamoDBDocumentClient, tableName: string, readBudget: number) {
    this.client = client;
    this.tableName = tableName;
    this.readBudget = readBudget;
  }

  dealPage(deal: DealRef, filter: TrailFilter, page: TrailPageRequest): Promise<TrailPage> {
    const partition = tablePartition(scopeKey({ kind: 'deal', ...deal }));
    return this.page(partition, filter, page, (position) => position);
  }

  userFilePage(fileId: number, page: TrailPageRequest): Promise<TrailPage> {
    // A user file's own actions are all in its owner's trail (theirs, or the operator's on
    // their file); the rest filed under it are the copies made of it. A filter names no key
    // attribute, so not the table's `scope`: the actions say it.
    const filter = { actions: USER_FILE_ACTIONS };
    return this.page(filePartition(fileId), filter, page, sortOfFilePosition);
  }

  async *fileEntries(
    fileId: number,
    filter: TrailFilter,
    signal?: AbortSignal,
  ): AsyncIterable<AccessEntry> {
    const range = keyRange(filter);
    if (range === undefined) return;
    const partition = filePartition(fileId);
    let start: Item | undefined;
    do {
      const { Items = [], LastEvaluatedKey } = await this.query(
        partition,
        expressionOf(partition, range, filter),
        { forward: false, start, signal, limit: STREAM_PAGE },
      );
      for (const item of Items) yield fromAccessEntryItem(item);
      start = LastEvaluatedKey;
    } while (start !== undefined);
  }

  async *entriesOf(
    scopes: readonly TrailScope[],
    window: TrailWindow,
    signal?: AbortSignal,
  ): AsyncIterable<AccessEntry> {
    const range = keyRange(window);
    if (range === undefined) return;
    const limit = Math.max(MIN_MERGE_PAGE, Math.floor(MERGE_BUFFER / Math.max(scopes.length, 1)));
    const streams = scopes.map((scope) => {
      const partition = tablePartition(scopeKey(scope));
      return this.oldestFirst(partition, expressionOf(partition, range, window), limit, signal);
    });
    for await (const { item } of mergedByKey(streams)) yield fromAccessEntryItem(item);
  }

  /**
   * One newest-first page: asks for one entry more than it keeps, so `next` is exact while
   * the read budget lasts; once it is spent, the page ends where the reading did.
   */
  private async page(
    partition: Partition,
    filter: TrailFilter,
    { limit, after, signal }: TrailPageRequest,
    sortOf: (position: TrailPosition) => string,
  ): Promise<TrailPage> {
    const range = keyRange(filter);
    const start = range === undefined ? 'past-the-end' : startWithin(after, sortOf, range);
    if (range === undefined || start === 'past-the-end') return { entries: [] };
    const expression = expressionOf(partition, range, filter);
    const placed: PlacedEntry[] = [];
    let startKey = start.from === undefined ? undefined : partition.startAfter(start.from);
    let read = 0;
    for (;;) {
      const wanted = limit + 1 - placed.length;
      const budget = this.readBudget - read;
      const {
        Items = [],
        LastEvaluatedKey,
        ScannedCount,
      } = await this.query(partition, expression, {
        forward: false,
        start: startKey,
        signal,
        // Unfiltered, every item read is kept: read no more than the page needs.
        limit: expression.FilterExpression === undefined ? Math.min(wanted, budget) : budget,
      });
      read += ScannedCount ?? Items.length;
      for (const item of Items) {
        placed.push({ entry: fromAccessEntryItem(item), position: partition.positionOf(item) });
      }
      const last = placed[limit - 1];
      if (placed.length > limit && last !== undefined) {
        return { entries: placed.slice(0, limit), next: last.position };
      }
      if (LastEvaluatedKey === undefined) return { entries: placed };
      if (read >= this.readBudget) {
        return { entries: placed, next: partition.positionOf(LastEvaluatedKey) };
      }
      startKey = LastEvaluatedKey;
    }
  }

  /** A trail's items oldest first, the next page asked for while this one is streamed. */
  private async *oldestFirst(
    partition: Partition,
    expression: Expression,
    limit: number,
    signal?: AbortSignal,
  ): AsyncGenerator<Keyed> {
    let next: Promise<QueryCommandOutput> | undefined = this.query(partition, expression, {
      forward: true,
      limit,
      signal,
    });
    while (next !== undefined) {
      const { Items = [], LastEvaluatedKey }: QueryCommandOutput = await next;
      next =
        LastEvaluatedKey === undefined
          ? undefined
          : this.query(partition, expression, {
              forward: true,
              limit,
              start: LastEvaluatedKey,
              signal,
            });
      // A read asked for ahead and never awaited (the reader stopped) must not go unhandled.
      next?.catch(() => undefined);
      for (const item of Items) {
        yield { key: `${String(item[TRAIL_KEY.sort])} ${partition.value}`, item };
      }
    }
  }

  private query(
    partition: Partition,
    expression: Expression,
    options: { forward: boolean; start?: Item; limit?: number; signal?: AbortSignal },
  ) {
    options.signal?.throwIfAborted();
    return this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        ...(partition.index === undefined
          ? { ConsistentRead: true }
          : { IndexName: partition.index }),
        ...expression,
        ScanIndexForward: options.forward,
        ExclusiveStartKey: options.start,
        Limit: options.limit,
      }),
      { abortSignal: options.signal },
    );
  }
}

/** An item and its place in the merged order. */
interface Keyed {
  readonly key: string;
  readonly item: Item;
}

/**
 * Several ordered streams as one, in order: the least head first. Linear in the streams per
 * item, which is a few comparisons for a group's deals; a stream is read only as it is used.
 */
async function* mergedByKey(streams: readonly AsyncGenerator<Keyed>[]): AsyncGenerator<Keyed> {
  try {
    const heads = await Promise.all(streams.map((stream) => stream.next()));
    for (;;) {
      let least: number | undefined;
      for (const [n, head] of heads.entries()) {
        if (head.done === true) continue;
        const current = least === undefined ? undefined : heads[least];
        if (current?.done !== false || head.value.key < current.value.key) least = n;
      }
      const stream = least === undefined ? undefined : streams[least];
      const head = least === undefined ? undefined : heads[least];
      if (stream === undefined || least === undefined || head?.done !== false) return;
      yield head.value;
      heads[least] = await stream.next();
    }
  } finally {
    await Promise.all(streams.map((stream) => stream.return(undefined)));
  }
}

/** The trail's queries, on its own table; a page reads at most `readBudget` items. */
export const trailQueries = (
  sources: Pick<AdapterSources, 'documents' | 'TRAIL_TABLE_NAME'>,
  readBudget = PAGE_READ_BUDGET,
) => new DynamoTrailQueries(sources.documents(), sources.TRAIL_TABLE_NAME, readBudget);
