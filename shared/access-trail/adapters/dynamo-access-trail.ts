import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { TrailUnavailable } from '../../domain/outcome.ts';
import { logger } from '../../logger.ts';
import type { AdapterSources } from '../../storage/adapter-sources.ts';
import { conditionsFailed, transactWrite } from '../../storage/aws/transactions.ts';
import type { AccessEntry } from '../access-entry.ts';
import type { AccessTrail } from '../access-trail.ts';
import { accessEntryPut, refusalPuts, type TrailTable, trailTableOf } from './access-entry-item.ts';

/** TransactWriteItems takes at most 100 items a call. */
const MAX_TRANSACTION_ITEMS = 100;

/**
 * The trail on its DynamoDB table. Every put is conditional on the key being free: one entry
 * is a conditional PutItem (one write unit; a transaction of one would cost two), more are
 * TransactWriteItems of conditional puts, chunks of 100 sent at once. A refused request is one
 * transaction: its caller's slot and its entries (at most 50, a room token's rooms, and 1).
 */
export class DynamoAccessTrail implements AccessTrail {
  private readonly client: DynamoDBDocumentClient;
  private readonly trail: TrailTable;

  constructor(client: DynamoDBDocumentClient, trail: TrailTable) {
    this.client = client;
    this.trail = trail;
  }

  async record(entries: readonly AccessEntry[]): Promise<void> {
    const puts = entries.map((entry) => accessEntryPut(this.trail, entry));
    const chunks: (typeof puts)[] = [];
    for (let start = 0; start < puts.length; start += MAX_TRANSACTION_ITEMS) {
      chunks.push(puts.slice(start, start + MAX_TRANSACTION_ITEMS));
    }
    try {
      await Promise.all(
        chunks.map((chunk) =>
          chunk.length === 1 && chunk[0] !== undefined
            ? this.client.send(new PutCommand(chunk[0].Put))
            : transactWrite(this.client, { TransactItems: chunk }),
        ),
      );
    } catch (error) {
      throw unavailable(error, entries.length);
    }
  }

  async recordRefusal(entries: readonly AccessEntry[]): Promise<'recorded' | 'slot-taken'> {
    if (entries.length === 0) return 'recorded';
    try {
      // The slot's put and the entries' (a transaction: PutItem's grant, item by item).
      await transactWrite(this.client, { TransactItems: refusalPuts(this.trail, entries) });
      return 'recorded';
    } catch (error) {
      if (conditionsFailed(error)) return 'slot-taken';
      throw unavailable(error, entries.length);
    }
  }
}

/** A write that failed, whatever the cause, as the outcome its caller fails closed on. */
function unavailable(error: unknown, count: number): TrailUnavailable {
  logger.error('The access trail could not be written', { error, entries: count });
  return new TrailUnavailable();
}

/** The access trail, on its own table. */
export const accessTrail = (
  sources: Pick<AdapterSources, 'documents' | 'TRAIL_TABLE_NAME' | 'ACCESS_TRAIL_RETENTION_DAYS'>,
) => new DynamoAccessTrail(sources.documents(), trailTableOf(sources));
