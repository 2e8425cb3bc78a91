import {
  type AttributeValue,
  type DynamoDBClient,
  paginateQuery,
  paginateScan,
} from '@aws-sdk/client-dynamodb';
import type { AdapterSources } from '../../storage/adapter-sources.ts';
import type { SealedEntry } from '../trail-digest.ts';
import type { FoundEntry, TrailHashes } from '../trail-hashes.ts';
import { isRefusalSlotItem, TRAIL_INDEXES, TRAIL_KEY, timeShardsOf } from './access-entry-item.ts';
import { foundEntryOf, sealedEntryOf } from './entry-item-hash.ts';

type Item = Record<string, AttributeValue>;

/** Segments of a whole-table read, read at once. */
const SCAN_SEGMENTS = 4;
const DAY_MS = 86_400_000;

/** Each day (`yyyy-mm-dd`, UTC) from the day of `from` to the day of `through`. */
function daysOf(from: string, through: string): string[] {
  const days: string[] = [];
  const last = Date.parse(`${through.slice(0, 10)}T00:00:00.000Z`);
  for (let day = Date.parse(`${from.slice(0, 10)}T00:00:00.000Z`); day <= last; day += DAY_MS) {
    days.push(new Date(day).toISOString().slice(0, 10));
  }
  return days;
}

/**
 * The access trail's items, read as sealing and verifying read them: typed, as DynamoDB's
 * API gives them, so each is hashed as stored (`entry-item-hash.ts`).
 */
export class DynamoTrailHashes implements TrailHashes {
  private readonly client: DynamoDBClient;
  private readonly tableName: string;

  constructor(client: DynamoDBClient, tableName: string) {
    this.client = client;
    this.tableName = tableName;
  }

  async filedBetween(from: string, through: string): Promise<SealedEntry[]> {
    return (await this.itemsFiledBetween(from, through)).map(sealedEntryOf);
  }

  /**
   * Every item filed from `from` to `through`: `ByTime`'s 16 shards of each day of the window,
   * a day's at once, day after day. Entry keys start with the time they are filed at and
   * never equal a bare instant, so BETWEEN takes exactly those from `from` up to `through`.
   */
  async itemsFiledBetween(from: string, through: string): Promise<Item[]> {
    const { ByTime } = TRAIL_INDEXES;
    const items: Item[] = [];
    for (const day of daysOf(from, through)) {
      const shards = await Promise.all(
        timeShardsOf(day).map(async (shard) => {
          const found: Item[] = [];
          const pages = paginateQuery(
            { client: this.client },
            {
              TableName: this.tableName,
              IndexName: 'ByTime',
              KeyConditionExpression: '#shard = :shard AND #entry BETWEEN :from AND :through',
              ExpressionAttributeNames: { '#shard': ByTime.partition, '#entry': ByTime.sort },
              ExpressionAttributeValues: {
                ':shard': { S: shard },
                ':from': { S: from },
                ':through': { S: through },
              },
            },
          );
          for await (const page of pages) found.push(...(page.Items ?? []));
          return found;
        }),
      );
      items.push(...shards.flat());
    }
    return items;
  }

  /**
   * The whole table, in segments read at once: an item no index finds (its shard changed, say)
   * is found here; callers' refusal slots, which are no entries, are passed over. Eventually consistent, at half the price: what it checks was sealed minutes
   * or months ago, and what it counts as not yet sealed is counted, not judged.
   */
  async forEachEntry(visit: (entry: FoundEntry) => void): Promise<void> {
    await Promise.all(
      Array.from({ length: SCAN_SEGMENTS }, async (_, segment) => {
        const pages = paginateScan(
          { client: this.client },
          {
            TableName: this.tableName,
            Segment: segment,
            TotalSegments: SCAN_SEGMENTS,
          },
        );
        for await (const page of pages) {
          for (const item of page.Items ?? []) {
            // A caller's refusal slots share the table and are no entries: nothing to verify.
            if (!isRefusalSlotItem({ [TRAIL_KEY.partition]: item[TRAIL_KEY.partition]?.S })) {
              visit(foundEntryOf(item));
            }
          }
        }
      }),
    );
  }
}

/** The trail's items as sealing and verifying read them, on its own table. */
export const trailHashes = (sources: Pick<AdapterSources, 'dynamodb' | 'TRAIL_TABLE_NAME'>) =>
  new DynamoTrailHashes(sources.dynamodb(), sources.TRAIL_TABLE_NAME);
