import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import {
  IdempotencyItemAlreadyExistsError,
  IdempotencyRecordStatus,
  PERSISTENCE_ATTRIBUTE_KEY_MAPPINGS,
} from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { IdempotencyRecord } from '@aws-lambda-powertools/idempotency/persistence';
import type { IdempotencyRecordStatusValue } from '@aws-lambda-powertools/idempotency/types';
import { AccountErased } from '../domain/outcome.ts';
import type { AdapterSources } from './adapter-sources.ts';
import { conditionNotErased } from './aws/conditional-writes.ts';
import { failedAt, transactWrite } from './aws/transactions.ts';
import {
  EXPIRY_ATTRIBUTE,
  idempotencyPartition,
  type IdempotentOperation,
  PARTITION_KEY,
  SORT_KEY,
} from './keys.ts';

/** The record's attributes: Powertools' names, but for the table's keys and TTL. */
const ATTRIBUTES = {
  ...PERSISTENCE_ATTRIBUTE_KEY_MAPPINGS,
  keyAttr: PARTITION_KEY,
  sortKeyAttr: SORT_KEY,
  expiryAttr: EXPIRY_ATTRIBUTE,
} as const;

/**
 * Powertools' DynamoDB records, held to their caller's erasure marker, as every write that
 * creates an item of a user's is: a record is created only in a transaction that finds no
 * marker, and completed only while it is still there. So every record of an erased user's is
 * one the erasure lists once its marker is written, and none comes back behind its deletes,
 * whatever requests of theirs are under way (`eraseUser`). Reads and deletes are Powertools'.
 */
class CallerRecords extends DynamoDBPersistenceLayer {
  private readonly documents: DynamoDBDocumentClient;
  private readonly table: string;
  private readonly userId: number;

  constructor(
    clients: { readonly dynamodb: DynamoDBClient; readonly documents: DynamoDBDocumentClient },
    tableName: string,
    operation: IdempotentOperation,
    userId: number,
  ) {
    super({
      ...ATTRIBUTES,
      tableName,
      staticPkValue: idempotencyPartition(operation, userId),
      awsSdkV3Client: clients.dynamodb,
    });
    this.documents = clients.documents;
    this.table = tableName;
    this.userId = userId;
  }

  /**
   * Powertools' own put (the same item, under the same condition: no record, or one expired,
   * or one in progress whose invocation ran out), with the marker's absence checked in the
   * same transaction: AccountErased, with nothing written, once the caller is erased.
   */
  protected override async _putRecord(record: IdempotencyRecord): Promise<void> {
    const now = Date.now();
    const item = {
      ...unmarshall(this.getKey(record.idempotencyKey)),
      [ATTRIBUTES.expiryAttr]: record.expiryTimestamp,
      [ATTRIBUTES.statusAttr]: record.getStatus(),
      ...(record.inProgressExpiryTimestamp === undefined
        ? {}
        : { [ATTRIBUTES.inProgressExpiryAttr]: record.inProgressExpiryTimestamp }),
      ...(this.isPayloadValidationEnabled() && record.payloadHash !== undefined
        ? { [ATTRIBUTES.validationKeyAttr]: record.payloadHash }
        : {}),
    };
    try {
      await transactWrite(this.documents, {
        TransactItems: [
          {
            Put: {
              TableName: this.table,
              Item: item,
              ConditionExpression:
                'attribute_not_exists(#id) OR #expiry < :now OR ' +
                '(#status = :inprogress AND attribute_exists(#progress) AND #progress < :nowMs)',
              ExpressionAttributeNames: {
                '#id': ATTRIBUTES.keyAttr,
                '#expiry': ATTRIBUTES.expiryAttr,
                '#progress': ATTRIBUTES.inProgressExpiryAttr,
                '#status': ATTRIBUTES.statusAttr,
              },
              ExpressionAttributeValues: {
                ':now': now / 1000,
                ':nowMs': now,
                ':inprogress': IdempotencyRecordStatus.INPROGRESS,
              },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
          conditionNotErased(this.table, this.userId),
        ],
      });
    } catch (error) {
      if (failedAt(error, 1)) throw new AccountErased();
      if (!failedAt(error, 0) || !(error instanceof TransactionCanceledException)) throw error;
      // The record there, as Powertools reads it back from its own put's failure.
      const raw = error.CancellationReasons?.[0]?.Item;
      const stored = raw === undefined ? undefined : unmarshall(raw);
      throw new IdempotencyItemAlreadyExistsError(
        `Failed to put record for already existing idempotency key: ${record.idempotencyKey}`,
        stored === undefined
          ? undefined
          : new IdempotencyRecord({
              idempotencyKey: stored[ATTRIBUTES.keyAttr] as string,
              sortKey: stored[ATTRIBUTES.sortKeyAttr] as string,
              status: stored[ATTRIBUTES.statusAttr] as IdempotencyRecordStatusValue,
              expiryTimestamp: stored[ATTRIBUTES.expiryAttr] as number | undefined,
              inProgressExpiryTimestamp: stored[ATTRIBUTES.inProgressExpiryAttr] as
                number | undefined,
              responseData: stored[ATTRIBUTES.dataAttr] as IdempotencyRecord['responseData'],
              payloadHash: stored[ATTRIBUTES.validationKeyAttr] as string | undefined,
            }),
      );
    }
  }

  /**
   * Powertools' own update of a completed call, only while its record is there: one the
   * erasure deleted while the call ran stays deleted (the caller is erased; a replay would
   * run the call again, and be refused as such).
   */
  protected override async _updateRecord(record: IdempotencyRecord): Promise<void> {
    const names: Record<string, string> = {
      '#id': ATTRIBUTES.keyAttr,
      '#expiry': ATTRIBUTES.expiryAttr,
      '#status': ATTRIBUTES.statusAttr,
    };
    const values: Record<string, unknown> = {
      ':expiry': record.expiryTimestamp,
      ':status': record.getStatus(),
    };
    const set = ['#expiry = :expiry', '#status = :status'];
    if (record.responseData !== undefined) {
      set.push('#data = :data');
      names['#data'] = ATTRIBUTES.dataAttr;
      values[':data'] = record.responseData;
    }
    if (this.isPayloadValidationEnabled()) {
      set.push('#validation = :validation');
      names['#validation'] = ATTRIBUTES.validationKeyAttr;
      values[':validation'] = record.payloadHash;
    }
    try {
      await this.documents.send(
        new UpdateCommand({
          TableName: this.table,
          Key: unmarshall(this.getKey(record.idempotencyKey)),
          UpdateExpression: `SET ${set.join(', ')}`,
          ConditionExpression: 'attribute_exists(#id)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
}

/**
 * Where idempotent calls keep their records: the table, in a partition per operation and
 * caller (`IDEMPOTENCY#<operation>#USER#<uid>`), so erasing a user finds theirs, and held to
 * the caller's erasure marker (`CallerRecords`). The persistence layer is made per keyed
 * call: a few small objects, no I/O.
 */
export const idempotency = ({
  dynamodb,
  documents,
  TABLE_NAME,
}: Pick<AdapterSources, 'dynamodb' | 'documents' | 'TABLE_NAME'>) => {
  const clients = { dynamodb: dynamodb(), documents: documents() };
  return {
    recordsOf: (operation: IdempotentOperation, userId: number) =>
      new CallerRecords(clients, TABLE_NAME, operation, userId),
  };
};
