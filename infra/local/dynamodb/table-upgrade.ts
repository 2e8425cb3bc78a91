import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DeleteTableCommand,
  type DynamoDBClient,
  waitUntilTableExists,
  waitUntilTableNotExists,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, paginateScan } from '@aws-sdk/lib-dynamodb';
import { batchWriteAll } from '#shared/storage/aws/batch-write.ts';
import {
  fromDealFileItem,
  fromUserFileItem,
  toDealFileItem,
  toUserFileItem,
} from '#shared/storage/file-items.ts';
import { FILE_CREATED_ATTRIBUTE, fileCreatedKey } from '#shared/storage/keys.ts';

/** The local table is rebuilt in seconds; a wait longer than this means DynamoDB Local is stuck. */
const MAX_WAIT_SECONDS = 60;

/** A file item from before the index gets its index key, as the adapters now write it. */
function withIndexKey(item: Record<string, unknown>): Record<string, unknown> {
  if (FILE_CREATED_ATTRIBUTE in item) return item;
  const { entity } = item;
  const stored = { ...item, [FILE_CREATED_ATTRIBUTE]: fileCreatedKey('', 0) };
  if (entity === 'UserFile') return toUserFileItem(fromUserFileItem(stored));
  if (entity === 'DealFile') return toDealFileItem(fromDealFileItem(stored));
  return item;
}

/**
 * Rebuilds a local table with the definition's indexes: every item is read (and kept in a file
 * until the rebuild is done, so a failure part-way loses nothing), the table made again, and
 * the items written back, file items with their index key. Local data only: a deployed table
 * is created with its index (docs/adr/0006-files-by-creation-index.md).
 */
export async function rebuildWithIndexes(
  client: DynamoDBClient,
  definition: CreateTableCommandInput,
): Promise<void> {
  const tableName = definition.TableName ?? '';
  const documents = DynamoDBDocumentClient.from(client);
  const items: Record<string, unknown>[] = [];
  for await (const page of paginateScan(
    { client: documents },
    { TableName: tableName, ConsistentRead: true },
  )) {
    items.push(...(page.Items ?? []));
  }
  const backupDir = await mkdtemp(join(tmpdir(), `${tableName}-before-index-`));
  const backup = join(backupDir, 'items.json');
  await writeFile(backup, JSON.stringify(items));
  console.warn(
    `[dynamodb] rebuilding table ${tableName} with its FilesByCreation index; ` +
      `its ${String(items.length)} items are kept in ${backup} until it is done`,
  );
  const waiter = { client, maxWaitTime: MAX_WAIT_SECONDS };
  await client.send(new DeleteTableCommand({ TableName: tableName }));
  await waitUntilTableNotExists(waiter, { TableName: tableName });
  await client.send(new CreateTableCommand(definition));
  await waitUntilTableExists(waiter, { TableName: tableName });
  await batchWriteAll(
    documents,
    tableName,
    items.map((item) => ({ PutRequest: { Item: withIndexKey(item) } })),
  );
  await rm(backupDir, { recursive: true, force: true });
}
