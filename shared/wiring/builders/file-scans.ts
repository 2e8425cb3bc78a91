import { DynamoFileScans } from '../../adapters/dynamo-file-scans.ts';
import type { AdapterSources } from '../adapter-sources.ts';

/** Files' malware-scan verdicts, on their records in the table. */
export const fileScans = ({
  documents,
  TABLE_NAME,
}: Pick<AdapterSources, 'documents' | 'TABLE_NAME'>) =>
  new DynamoFileScans(documents(), TABLE_NAME);
