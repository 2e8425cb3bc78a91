import { DynamoDirectUploadRepository } from '../../adapters/dynamo-direct-upload-repository.ts';
import type { AdapterSources } from '../adapter-sources.ts';

/** Direct uploads' records, from the signed form to the UserFile. */
export const directUploads = ({
  documents,
  TABLE_NAME,
}: Pick<AdapterSources, 'documents' | 'TABLE_NAME'>) =>
  new DynamoDirectUploadRepository(documents(), TABLE_NAME);
