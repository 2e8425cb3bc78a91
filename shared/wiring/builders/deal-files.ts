import { DynamoDealFileRepository } from '../../adapters/dynamo-deal-file-repository.ts';
import type { AdapterSources } from '../adapter-sources.ts';

/** Deals' files, and the caller's access to them, in the table. */
export const dealFiles = ({
  documents,
  TABLE_NAME,
}: Pick<AdapterSources, 'documents' | 'TABLE_NAME'>) =>
  new DynamoDealFileRepository(documents(), TABLE_NAME);
