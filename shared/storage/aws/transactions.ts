import {
  TransactionCanceledException,
  TransactionConflictException,
} from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';

/** Whether a transaction was cancelled because the condition on its item `index` failed. */
export function failedAt(error: unknown, index: number): boolean {
  return (
    error instanceof TransactionCanceledException &&
    error.CancellationReasons?.[index]?.Code === 'ConditionalCheckFailed'
  );
}

/** Whether any of its conditions failed: the items are not as the transaction required. */
export const conditionsFailed = (error: unknown): boolean =>
  error instanceof TransactionCanceledException &&
  (error.CancellationReasons ?? []).some((reason) => reason.Code === 'ConditionalCheckFailed');

const isConflict = (error: unknown): boolean =>
  error instanceof TransactionCanceledException &&
  (error.CancellationReasons ?? []).some((reason) => reason.Code === 'TransactionConflict');

/**
 * Every write that creates an item of a user's checks their erasure marker in its transaction,
 * so one user's writes at once contend on that item: enough tries, about 3 s of waits at most,
 * for a burst of them to pass one by one.
 */
const MAX_ATTEMPTS = 8;
const MAX_WAIT_MS = 1000;

/**
 * Sends a transaction, retrying the ones DynamoDB cancels because another request was
 * changing the same items at that moment (`TransactionConflict`), which the SDK does not
 * retry; backoff with full jitter, as AWS advises. Conflicts that outlast the tries are
 * raised as DynamoDB's TransactionConflictException: busy, not broken (a 503 to a caller).
 */
export async function transactWrite(
  client: DynamoDBDocumentClient,
  input: TransactWriteCommandInput,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await client.send(new TransactWriteCommand(input));
      return;
    } catch (error) {
      if (!isConflict(error) || conditionsFailed(error)) throw error;
      if (attempt === MAX_ATTEMPTS) {
        throw new TransactionConflictException({
          message: 'The transaction kept conflicting with others on the same items',
          $metadata: {},
        });
      }
      const wait = Math.random() * Math.min(MAX_WAIT_MS, 20 * 2 ** attempt);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}
