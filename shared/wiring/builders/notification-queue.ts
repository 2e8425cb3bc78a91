import { SqsMessageQueue } from '../../adapters/sqs-message-queue.ts';
import type { AdapterSources } from '../adapter-sources.ts';

/** The submission-notification queue. */
export const notificationQueue = ({
  sqs,
  NOTIFY_QUEUE_URL,
}: Pick<AdapterSources, 'sqs' | 'NOTIFY_QUEUE_URL'>) =>
  new SqsMessageQueue(sqs(), NOTIFY_QUEUE_URL);
