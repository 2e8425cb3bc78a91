import { requiredEnv } from '../config.ts';
import { sqsClient } from '../adapters/aws/sqs.ts';
import type { MessageQueue } from './message-queue.ts';
import { SqsMessageQueue } from '../adapters/sqs-message-queue.ts';

/** Where the local stage registers its in-process queues, by name. */
const LOCAL_QUEUES = Symbol.for('file-service.local-queues');
const LOCAL_SCHEME = 'local:';

type LocalQueues = Map<string, MessageQueue>;

/** The local stage's queue registry, made on first use. */
export const localQueues = (): LocalQueues => {
  const holder = globalThis as { [LOCAL_QUEUES]?: LocalQueues };
  holder[LOCAL_QUEUES] ??= new Map();
  return holder[LOCAL_QUEUES];
};

/**
 * The queue an environment variable names: an SQS queue URL on AWS; `local:<name>` on the
 * local stage, whose queues run in its process (see `#infra/local/in-process-queue.ts`) and
 * are looked up on each call, so a restarted stage's queue is the one used.
 */
export function queueFromEnv(variable: string): MessageQueue {
  const url = requiredEnv(variable);
  if (!url.startsWith(LOCAL_SCHEME)) return new SqsMessageQueue(sqsClient(), url);
  const name = url.slice(LOCAL_SCHEME.length);
  const running = (): MessageQueue => {
    const queue = localQueues().get(name);
    if (queue === undefined) {
      throw new Error(`${variable} names the local queue "${name}", which is not running`);
    }
    return queue;
  };
  return {
    send: (body) => running().send(body),
    changeVisibility: (receiptHandle, delayMs) =>
      running().changeVisibility(receiptHandle, delayMs),
  };
}
