import { DynamoTokenBuckets } from '../../adapters/dynamo-token-buckets.ts';
import type { AdapterSources } from '../adapter-sources.ts';

/** Token buckets in the table: senders' notify allowances and the chat channel's pace. */
export const rateLimits = ({
  documents,
  TABLE_NAME,
}: Pick<AdapterSources, 'documents' | 'TABLE_NAME'>) =>
  new DynamoTokenBuckets(documents(), TABLE_NAME);
