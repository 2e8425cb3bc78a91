import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { TrailUnavailable } from '../../domain/outcome.ts';
import { logger } from '../../logger.ts';
import type { AdapterSources } from '../../storage/adapter-sources.ts';
import { isConditionFailure } from '../../storage/aws/conditional-writes.ts';
import { transactWrite } from '../../storage/aws/transactions.ts';
import type { AccessEntry } from '../access-entry.ts';
import type { AccessTrail } from '../access-trail.ts';
import { accessEntryPut, type TrailTable, trailTableOf } from './access-entry-item.ts';

/** TransactWriteItems takes at most 100 items a call. */
const MAX_TRANSACTION_ITEMS = 100;

/**
 * The trail on its DynamoDB table. Every put is conditional on the key being free: one entry
 * is a conditional PutItem (one write unit; a transaction of one would cost two), more are
 * TransactWriteItems of conditional puts, chunks of 100 sent at once.
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

  async recordRefusal(entry: AccessEntry): Promise<'recorded' | 'slot-taken'> {
    try {
      await this.client.send(new PutCommand(accessEntryPut(this.trail, entry).Put));
      return 'recorded';
    } catch (error) {
      if (isConditionFailure(error)) return 'slot-taken';
      throw unavailable(error, 1);
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
