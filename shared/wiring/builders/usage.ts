import { DynamoUsageLedger } from '../../adapters/dynamo-usage-ledger.ts';
import type { AdapterSources } from '../adapter-sources.ts';

/** Users' usage against their storage limits, an item beside their files. */
export const usage = ({
  documents,
  TABLE_NAME,
}: Pick<AdapterSources, 'documents' | 'TABLE_NAME'>) =>
  new DynamoUsageLedger(documents(), TABLE_NAME);
