import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { counterKey, FILE_ID_SEQUENCE } from './keys.ts';
import type { IdAllocator } from '../domain/file-record.ts';
import type { AdapterSources } from './adapter-sources.ts';

export interface BlockIdAllocatorOptions {
  /** The counter's name: every allocator of one sequence shares one counter item. */
  readonly sequence: string;
  /** Ids reserved per counter write. A container's unused rest is skipped, never reused. */
  readonly blockSize?: number;
}

/**
 * Hi/lo ids: one atomic ADD on the counter item reserves a block, and the container hands
 * the block out from memory. Concurrent callers in one container share a single refill.
 */
export class DynamoBlockIdAllocator implements IdAllocator {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly sequence: string;
  private readonly blockSize: number;
  private nextId = 1;
  private lastId = 0;
  private refill: Promise<void> | undefined;

  constructor(client: DynamoDBDocumentClient, tableName: string, options: BlockIdAllocatorOptions) {
    this.client = client;
    this.tableName = tableName;
    this.sequence = options.sequence;
    this.blockSize = options.blockSize ?? 50;
  }

  async next(): Promise<number> {
    while (this.nextId > this.lastId) {
      this.refill ??= this.reserveBlock().finally(() => {
        this.refill = undefined;
      });
      await this.refill;
    }
    return this.nextId++;
  }

  private async reserveBlock(): Promise<void> {
    const { Attributes } = await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: counterKey(this.sequence),
        UpdateExpression: 'ADD #hi :block',
        ExpressionAttributeNames: { '#hi': 'hi' },
        ExpressionAttributeValues: { ':block': this.blockSize },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const hi = Number(Attributes?.hi);
    if (!Number.isSafeInteger(hi)) {
      throw new Error(`Counter ${this.sequence} is past the safe integer range`);
    }
    this.nextId = hi - this.blockSize + 1;
    this.lastId = hi;
  }
}

/**
 * File ids, user and deal files alike, from the table's one sequence, reserved `blockSize` at
 * a time (the allocator's own default unless given).
 */
export const fileIdsInBlocksOf =
  (blockSize?: number) =>
  ({ documents, TABLE_NAME }: Pick<AdapterSources, 'documents' | 'TABLE_NAME'>) =>
    new DynamoBlockIdAllocator(documents(), TABLE_NAME, {
      sequence: FILE_ID_SEQUENCE,
      ...(blockSize === undefined ? {} : { blockSize }),
    });

/** File ids as the functions take them: a block per container. */
export const fileIds = fileIdsInBlocksOf();
