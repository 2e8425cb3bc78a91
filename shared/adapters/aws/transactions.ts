import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
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

const MAX_ATTEMPTS = 5;

/**
 * Sends a transaction, retrying the ones DynamoDB cancels because another request was
 * changing the same items at that moment (`TransactionConflict`), which the SDK does not
 * retry; backoff with full jitter, as AWS advises.
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
      if (!isConflict(error) || conditionsFailed(error) || attempt === MAX_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * 2 ** attempt));
    }
  }
}
