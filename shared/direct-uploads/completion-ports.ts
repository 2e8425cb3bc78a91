import { documentClient } from '../adapters/aws/dynamodb.ts';
import { S3BlobStore } from '../adapters/s3-blob-store.ts';
import { s3Client } from '../adapters/aws/s3.ts';
import { requiredEnv } from '../config.ts';
import { DynamoUserFileRepository } from '../adapters/dynamo-user-file-repository.ts';
import type { CompletionPorts } from './complete-direct-upload.ts';
import { DynamoDirectUploadRepository } from '../adapters/dynamo-direct-upload-repository.ts';

/** The adapters completion runs on, from the function's environment (read at cold start). */
export function completionPorts(): CompletionPorts {
  const tableName = requiredEnv('TABLE_NAME');
  return {
    uploads: new DynamoDirectUploadRepository(documentClient(), tableName),
    files: new DynamoUserFileRepository(documentClient(), tableName),
    blobs: new S3BlobStore(s3Client(), requiredEnv('BUCKET_NAME')),
  };
}
