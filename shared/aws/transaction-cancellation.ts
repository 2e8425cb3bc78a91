import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';

/** Whether a transaction was cancelled because the condition on its item `index` failed. */
export function failedAt(error: unknown, index: number): boolean {
  return (
    error instanceof TransactionCanceledException &&
    error.CancellationReasons?.[index]?.Code === 'ConditionalCheckFailed'
  );
}
