import { DynamoNotificationRepository } from '../../adapters/dynamo-notification-repository.ts';
import type { AdapterSources } from '../adapter-sources.ts';

/** Submission notifications' records. */
export const notifications = ({
  documents,
  TABLE_NAME,
}: Pick<AdapterSources, 'documents' | 'TABLE_NAME'>) =>
  new DynamoNotificationRepository(documents(), TABLE_NAME);
