import type { EventEmitter } from 'node:events';
import type { S3Event } from 'aws-lambda';
import { finalizeDirectUploadFunction } from '#functions/finalize-direct-upload/function.ts';
import { DIRECT_UPLOAD_OBJECT_PREFIX } from '#shared/storage/keys.ts';
import { encodeEventKey } from '#shared/storage/aws/s3-event-key.ts';
import type { LocalWiring } from '../lambda/handler-loader.ts';
import { asyncInvoker } from '../lambda/lambda-async-invoke.ts';

/**
 * Delivers the store's ObjectCreated events under the direct uploads' prefix (the bucket's
 * notification filter on AWS) to the finalizer as S3 delivers them to Lambda: asynchronously,
 * retried (lambda-async-invoke.ts), the key URL-encoded. `drain()` waits for those under way.
 */
export function deliverToFinalizer(store: EventEmitter, wiring: LocalWiring) {
  const invoker = asyncInvoker(wiring, finalizeDirectUploadFunction.id);
  store.on('event', (event: S3Event) => {
    // A copy of its own: every listener of the store's events gets the same object.
    const delivered = structuredClone(event);
    const object = delivered.Records[0]?.s3.object;
    if (object === undefined || !object.key.startsWith(DIRECT_UPLOAD_OBJECT_PREFIX)) return;
    object.key = encodeEventKey(object.key);
    invoker.invoke(delivered);
  });
  return { drain: (): Promise<void> => invoker.drain() };
}
