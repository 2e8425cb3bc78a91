import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { type DynamoDBDocumentClient, paginateScan } from '@aws-sdk/lib-dynamodb';

/** A fault we cannot cause for real: this one call fails, everything else is real. */
export const failing = <T extends object>(target: T, method: keyof T): T =>
  new Proxy(target, {
    get: (object, property, receiver) =>
      property === method
        ? () => Promise.reject(new Error(`injected: ${String(method)} failed`))
        : (Reflect.get(object, property, receiver) as unknown),
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
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: name }));
  return { items, objects: (listed.Contents ?? []).map((o) => o.Key) };
}
