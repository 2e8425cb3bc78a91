import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import * as z from 'zod';
import { EXPIRY_ATTRIBUTE, PARTITION_KEY, SORT_KEY } from '../../storage/keys.ts';

/** The attribute that holds a bucket's state: the time (epoch ms) it is full again. */
export const FULL_AT_ATTRIBUTE = 'full_at';

/** How a token bucket is stored; read only through this schema. */
export const TOKEN_BUCKET_ITEM = z.object({
  [PARTITION_KEY]: z.string(),
  [SORT_KEY]: z.string(),
  entity: z.literal('TokenBucket'),
  [FULL_AT_ATTRIBUTE]: z.number(),
  [EXPIRY_ATTRIBUTE]: z.number().int(),
});

/**
 * A bucket's `fullAt` as a failed condition hands the item back (DynamoDB's own attribute
 * values: the document client does not translate an error's item), or undefined when there is
 * no item (never used, or expired and gone).
 */
export function fullAtOfRawItem(
  item: Record<string, AttributeValue> | undefined,
): number | undefined {
  return item === undefined
    ? undefined
    : TOKEN_BUCKET_ITEM.parse(unmarshall(item))[FULL_AT_ATTRIBUTE];
}
