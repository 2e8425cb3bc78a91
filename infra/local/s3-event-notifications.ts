import type { EventEmitter } from 'node:events';
import type { S3Event } from 'aws-lambda';
import { encodeEventKey } from '#shared/adapters/aws/s3-event-key.ts';
import { createHandlerLoader, type LocalWiring } from './handler-loader.ts';
import { invokeAsLambda } from './lambda-context.ts';
import { stackFunction } from './stack-functions.ts';

export interface ObjectCreatedTarget {
  readonly functionId: string;
  readonly entry: string;
  /** Only keys under this prefix, as the bucket's notification filter on AWS. */
  readonly objectPrefix: string;
}

/** Lambda retries a failed asynchronous invocation twice; these are the waits, shortened. */
const RETRY_DELAYS_MS = [200, 1000];

const sleep = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms);
  });

/**
 * Delivers s3rver's ObjectCreated notifications to a handler module as S3 delivers them to
 * a Lambda function on AWS: asynchronously, one event per object, with the function's own
 * timeout and memory (its declaration's), retried when it fails or runs out of time.
 * `drain()` waits for deliveries under way, so the stage can stop cleanly.
 */
export function forwardObjectCreated(
  notifications: EventEmitter,
  target: ObjectCreatedTarget & { readonly root: string; readonly wiring: LocalWiring },
): { drain(): Promise<void> } {
  const load = createHandlerLoader(target.root, target.wiring);
  const inFlight = new Set<Promise<void>>();
  const { functionId } = target;
  const sizing = stackFunction(functionId);
  const say = (what: string, ...details: unknown[]) => {
    console.error(`[${functionId}] ${what}`, ...details);
  };

  const deliver = async (event: S3Event): Promise<void> => {
    const handler = await load(target.entry);
    for (let attempt = 0; ; attempt++) {
      try {
        // A time-out is a failure like any other: retried.
        await invokeAsLambda(functionId, sizing, (context) => handler(event, context));
        return;
      } catch (error) {
        const delay = RETRY_DELAYS_MS[attempt];
        if (delay === undefined) {
          say('gave up on an S3 event:', error);
          return;
        }
        await sleep(delay);
      }
    }
  };

  notifications.on('event', (event: S3Event) => {
    const record = event.Records[0];
    if (record === undefined) return;
    // s3rver sends the raw key; S3 sends it URL-encoded, and the finalizer reads S3's form.
    const key = record.s3.object.key;
    if (!record.eventName.startsWith('ObjectCreated:') || !key.startsWith(target.objectPrefix)) {
      return;
    }
    record.s3.object.key = encodeEventKey(key);
    const delivery = deliver(event).catch((error: unknown) => {
      say('could not be loaded:', error);
    });
    inFlight.add(delivery);
    void delivery.finally(() => inFlight.delete(delivery));
  });

  return {
    drain: async () => {
      await Promise.allSettled([...inFlight]);
    },
  };
}
