import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { AdapterSources } from './adapter-sources.ts';
import {
  EXPIRY_ATTRIBUTE,
  idempotencyPartition,
  type IdempotentOperation,
  PARTITION_KEY,
  SORT_KEY,
} from './keys.ts';

/**
 * Where idempotent calls keep their records: the table, through the plain client, in a
 * partition per operation and caller (`IDEMPOTENCY#<operation>#USER#<uid>`), so erasing a
 * user finds theirs. The persistence layer is made per keyed call: a few small objects, no I/O.
 */
export const idempotency = ({
  dynamodb,
  TABLE_NAME,
}: Pick<AdapterSources, 'dynamodb' | 'TABLE_NAME'>) => {
  const client = dynamodb();
  return {
    recordsOf: (operation: IdempotentOperation, userId: number) =>
      new DynamoDBPersistenceLayer({
        tableName: TABLE_NAME,
        keyAttr: PARTITION_KEY,
        sortKeyAttr: SORT_KEY,
        staticPkValue: idempotencyPartition(operation, userId),
        expiryAttr: EXPIRY_ATTRIBUTE,
        awsSdkV3Client: client,
      }),
  };
};
