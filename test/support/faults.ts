import type { S3Client } from '@aws-sdk/client-s3';
import { type DynamoDBDocumentClient, paginateScan } from '@aws-sdk/lib-dynamodb';
import { listAllObjects } from '#shared/storage/aws/list-all-objects.ts';

/** A fault we cannot cause for real: this one call fails, everything else is real. */
export const failing = <T extends object>(target: T, method: keyof T): T =>
  new Proxy(target, {
    get: (object, property, receiver) =>
      property === method
        ? () => Promise.reject(new Error(`injected: ${String(method)} failed`))
        : (Reflect.get(object, property, receiver) as unknown),
  });

/** A write that lands, then loses its answer: this one call, as the SDK would see it. */
export const answerLost = <T extends object>(target: T, method: keyof T): T =>
  new Proxy(target, {
    get: (object, property, receiver) => {
      const real = Reflect.get(object, property, receiver) as unknown;
      if (property !== method || typeof real !== 'function') return real;
      return async (...args: unknown[]) => {
        await (real as (...a: unknown[]) => Promise<unknown>).apply(object, args);
        throw new Error(`injected: ${String(method)} landed, its answer lost`);
      };
    },
  });

/** Everything in a table (but id counters) and a bucket of the same name. */
export async function storedIn(dynamodb: DynamoDBDocumentClient, s3: S3Client, name: string) {
  const items: Record<string, unknown>[] = [];
  for await (const page of paginateScan(
    { client: dynamodb },
    { TableName: name, ConsistentRead: true },
  )) {
    items.push(...(page.Items ?? []).filter((item) => !String(item.PK).startsWith('COUNTER#')));
  }
  const objects: (string | undefined)[] = [];
  for await (const page of listAllObjects(s3, name)) objects.push(...page.map((o) => o.Key));
  return { items, objects };
}
