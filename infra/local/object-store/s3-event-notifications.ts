import type { EventEmitter } from 'node:events';
import type { S3Event } from 'aws-lambda';
import { encodeEventKey } from '#shared/storage/aws/s3-event-key.ts';
import type { LocalWiring } from '../lambda/handler-loader.ts';
import { asyncInvoker } from '../lambda/lambda-async-invoke.ts';

/**
 * Delivers the store's ObjectCreated events under `objectPrefix` (the bucket's notification
 * filter on AWS) to a function as S3 delivers them to Lambda: asynchronously, retried
 * (lambda-async-invoke.ts), the key URL-encoded. `drain()` waits for deliveries under way.
 */
export function forwardObjectCreated(
  notifications: EventEmitter,
  wiring: LocalWiring,
  functionId: string,
  objectPrefix: string,
): { drain(): Promise<void> } {
  const invoker = asyncInvoker(wiring, functionId);
  notifications.on('event', (event: S3Event) => {
    // A copy of its own: every listener of the store's events gets the same object.
    const delivered = structuredClone(event);
    const object = delivered.Records[0]?.s3.object;
    if (object === undefined || !object.key.startsWith(objectPrefix)) return;
    object.key = encodeEventKey(object.key);
    invoker.invoke(delivered);
  });
  return { drain: () => invoker.drain() };
}
