import { SqsMessageQueue } from '../../adapters/sqs-message-queue.ts';
import type { AdapterSources } from '../adapter-sources.ts';

/** The notification queue's dead-letter queue. */
export const deadLetters = ({
  sqs,
  NOTIFY_DLQ_URL,
}: Pick<AdapterSources, 'sqs' | 'NOTIFY_DLQ_URL'>) => new SqsMessageQueue(sqs(), NOTIFY_DLQ_URL);
