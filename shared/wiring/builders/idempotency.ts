import type { IdempotencyStore } from '../../http/idempotency-key.ts';
import type { AdapterSources } from '../adapter-sources.ts';

/** Where idempotent calls keep their records: the table, through the plain client. */
export const idempotency = ({
  dynamodb,
  TABLE_NAME,
}: Pick<AdapterSources, 'dynamodb' | 'TABLE_NAME'>): IdempotencyStore => ({
  client: dynamodb(),
  tableName: TABLE_NAME,
});
