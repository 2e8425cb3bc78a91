import { DynamoDealRoles } from '../../adapters/dynamo-deal-roles.ts';
import type { AdapterSources } from '../adapter-sources.ts';

/** A user's role in each of many deals, read from the groups' items in the table. */
export const dealRoles = ({
  documents,
  TABLE_NAME,
}: Pick<AdapterSources, 'documents' | 'TABLE_NAME'>) =>
  new DynamoDealRoles(documents(), TABLE_NAME);
