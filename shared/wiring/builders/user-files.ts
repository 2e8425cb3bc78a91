import { DynamoUserFileRepository } from '../../adapters/dynamo-user-file-repository.ts';
import type { AdapterSources } from '../adapter-sources.ts';

/** Users' files: their records in the table. */
export const userFiles = ({
  documents,
  TABLE_NAME,
}: Pick<AdapterSources, 'documents' | 'TABLE_NAME'>) =>
  new DynamoUserFileRepository(documents(), TABLE_NAME);
