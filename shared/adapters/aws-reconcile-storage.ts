import type { S3Client } from '@aws-sdk/client-s3';
import { type DynamoDBDocumentClient, paginateScan } from '@aws-sdk/lib-dynamodb';
import { listAllObjects } from './aws/list-all-objects.ts';
import { DIRECT_UPLOAD_OBJECT_PREFIX } from '../data/keys.ts';
import type { StoragePorts } from '../reconcile/reconcile-storage.ts';

/**
 * Where file bytes live: users' and deals' files, and direct uploads' forms (see
 * `userFileObjectKey`, `dealFileObjectKey`, `directUploadObjectKey`).
 */
const FILE_PREFIXES = ['users/', 'groups/', DIRECT_UPLOAD_OBJECT_PREFIX] as const;

/** The table, scanned strongly consistent, and the bucket's file objects, page by page. */
export function awsStorage(options: {
  readonly dynamodb: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly s3: S3Client;
  readonly bucket: string;
}): StoragePorts {
  return {
    items: async function* () {
      for await (const page of paginateScan(
        { client: options.dynamodb },
        { TableName: options.tableName, ConsistentRead: true },
      )) {
        yield page.Items ?? [];
      }
    },
    // Only where file bytes live: whatever else an operator keeps in the bucket is theirs.
    objects: async function* () {
      for (const prefix of FILE_PREFIXES) {
        for await (const page of listAllObjects(options.s3, options.bucket, prefix)) {
          yield page.map((object) => ({
            key: object.Key ?? '',
            lastModified: object.LastModified ?? new Date(0),
          }));
        }
      }
    },
  };
}
