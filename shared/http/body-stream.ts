import type { Readable } from 'node:stream';

const BODY_STREAM = Symbol.for('file-service.local-body-stream');

/**
 * The local stage's one liberty with the Lambda event: for a route that opts in, the
 * request body is not in `event.body` but still arriving, as a stream under this symbol, so
 * a 50 MB upload flows on to S3 as it comes in. On Lambda there is never one: API Gateway
 * hands the function the whole body.
 */
export function attachBodyStream(event: object, stream: Readable): void {
  Object.defineProperty(event, BODY_STREAM, { value: stream, enumerable: false });
}

export function bodyStreamOf(event: object): Readable | undefined {
  return (event as { [BODY_STREAM]?: Readable })[BODY_STREAM];
}
