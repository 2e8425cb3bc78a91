import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import {
  FILE_CREATED_ATTRIBUTE,
  FILES_BY_CREATION_INDEX,
  fileCreatedKey,
  PARTITION_KEY,
  SORT_KEY,
} from '../keys.ts';
import type { ListOptions } from '../../domain/page.ts';

/** The items of one listing, and whether files remain after them. */
export interface FileItems {
  readonly items: readonly Record<string, unknown>[];
  readonly more: boolean;
}

/**
 * A file partition's items newest first, from the FilesByCreation index, strongly consistent.
 * A page asks for one item more than it keeps, so `more` is exact and no page is empty. Query
 * pages are 1 MB, so it follows LastEvaluatedKey; it stops at once when the signal fires
 * (the function's timeout), and the SDK cancels the read under way.
 */
export async function filesNewestFirst(
  client: DynamoDBDocumentClient,
  tableName: string,
  partition: string,
  sortKeyOf: (fileId: number) => string,
  { page, signal }: ListOptions,
): Promise<FileItems> {
  const items: Record<string, unknown>[] = [];
  const wanted = page === undefined ? Infinity : page.limit + 1;
  let startKey: Record<string, unknown> | undefined =
    page?.after === undefined
      ? undefined
      : {
          [PARTITION_KEY]: partition,
          [SORT_KEY]: sortKeyOf(page.after.id),
          [FILE_CREATED_ATTRIBUTE]: fileCreatedKey(page.after.createdAt, page.after.id),
        };
  do {
    signal?.throwIfAborted();
    const { Items = [], LastEvaluatedKey } = await client.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: FILES_BY_CREATION_INDEX,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': PARTITION_KEY },
        ExpressionAttributeValues: { ':pk': partition },
        ScanIndexForward: false,
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
        ...(wanted === Infinity ? {} : { Limit: wanted - items.length }),
      }),
      { abortSignal: signal },
    );
    items.push(...Items);
    startKey = LastEvaluatedKey;
  } while (startKey !== undefined && items.length < wanted);
  return page === undefined
    ? { items, more: false }
    : { items: items.slice(0, page.limit), more: items.length > page.limit };
}
