import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import * as z from 'zod';
import { EXPIRY_ATTRIBUTE, PARTITION_KEY, SORT_KEY } from '../../data/keys.ts';

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
 * A bucket as a failed condition hands it back (DynamoDB's own attribute values: the
 * document client does not translate an error's item): its `fullAt`, or undefined when there
 * is no item (never used, or expired and gone).
 */
const RAW_BUCKET = z
  .object({
    entity: z.object({ S: z.literal('TokenBucket') }),
    [FULL_AT_ATTRIBUTE]: z.object({ N: z.string().regex(/^-?\d+(\.\d+)?(E[+-]?\d+)?$/i) }),
  })
  .optional();

export function fullAtOfRawItem(
  item: Record<string, AttributeValue> | undefined,
): number | undefined {
  const stored = RAW_BUCKET.parse(item);
  return stored === undefined ? undefined : Number(stored[FULL_AT_ATTRIBUTE].N);
}
