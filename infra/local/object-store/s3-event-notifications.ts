import type { EventEmitter } from 'node:events';
import type { S3Event } from 'aws-lambda';
import { encodeEventKey } from '#shared/storage/aws/s3-event-key.ts';
import type { LocalWiring } from '../lambda/handler-loader.ts';
import { asyncInvoker } from '../lambda/lambda-async-invoke.ts';

export interface ObjectCreatedTarget {
  readonly functionId: string;
  readonly entry: string;
  /** Only keys under this prefix, as the bucket's notification filter on AWS. */
  readonly objectPrefix: string;
}

/**
 * Delivers the store's ObjectCreated notifications to a handler module as S3 delivers them to
 * a Lambda function on AWS: asynchronously, one event per object, retried when it fails or
 * runs out of time (lambda-async-invoke.ts). `drain()` waits for deliveries under way, so
 * the stage can stop cleanly.
 */
export function forwardObjectCreated(
  notifications: EventEmitter,
  target: ObjectCreatedTarget & { readonly root: string; readonly wiring: LocalWiring },
): { drain(): Promise<void> } {
  const invoker = asyncInvoker(target);
  notifications.on('event', (event: S3Event) => {
    const record = event.Records[0];
    if (record === undefined) return;
    const key = record.s3.object.key;
    if (!record.eventName.startsWith('ObjectCreated:') || !key.startsWith(target.objectPrefix)) {
      return;
    }
    // The store sends the raw key; S3 sends it URL-encoded, and the finalizer reads S3's form.
    // A copy of its own: every listener of the store's events gets the same object.
    const delivered = structuredClone(event);
    const [copy] = delivered.Records;
    if (copy !== undefined) copy.s3.object.key = encodeEventKey(key);
    invoker.invoke(delivered);
  });
  return { drain: () => invoker.drain() };
}
