import type { IncomingMessage } from 'node:http';
import { type PlatformRefusal, refuseRequestBody } from './platform-limits.ts';

/**
 * How much of an over-size body the gateway reads (and throws away) before it answers, and
 * for how long. A client that sends its whole body before it reads the answer (`fetch`,
 * Python's `urllib` and `requests`) only sees the 413 if the body was read: closing a socket
 * with bytes still unread resets it, and the client sees a broken pipe instead. Past either
 * bound the gateway answers at once and closes, as a body that large is no honest mistake.
 */
export interface DrainLimits {
  /** The most bytes a refused body may have, in all, and still be read to its end. */
  readonly maxBytes: number;
  /** How long the gateway goes on reading a refused body. */
  readonly maxMs: number;
}

/**
 * 64 MiB: the contract's 50 MB upload with its form around it, sent to the multipart route
 * by mistake, is read and answered. 20 s: such a body takes well under a second on this
 * machine, and some seconds over a slow network.
 */
export const OVERSIZE_DRAIN: DrainLimits = { maxBytes: 64 * 1024 * 1024, maxMs: 20_000 };

export type BodyRead =
  | { readonly kind: 'read'; readonly body: Buffer }
  /** Over the limit. `drained`: every byte was read, so the answer reaches the client. */
  | { readonly kind: 'too-large'; readonly refusal: PlatformRefusal; readonly drained: boolean }
  /** The client went away before its body was complete: nothing to answer, nothing to run. */
  | { readonly kind: 'aborted' };

const declaredLength = (request: IncomingMessage): number | undefined => {
  const declared = Number(request.headers['content-length'] ?? Number.NaN);
  return Number.isSafeInteger(declared) && declared >= 0 ? declared : undefined;
};

/**
 * The whole body, or the refusal of it (`refuse`: API Gateway's 10 MiB unless told): on a
 * declared length before a byte is kept, otherwise as soon as the bytes read pass the limit. A
 * refused body is then read to its end and dropped, within `drain`, so that the answer can be
 * read. A declared length is read straight into one buffer of that size, so the body is held
 * once, not twice.
 *
 * Events rather than the async iterator: leaving a `for await` destroys the request, and with
 * it the socket the answer has to go out on.
 */
export function readRequestBody(
  request: IncomingMessage,
  drain: DrainLimits,
  refuse: (bytes: number) => PlatformRefusal | undefined = refuseRequestBody,
): Promise<BodyRead> {
  // Gone while the authorizer ran: no event will come.
  if (request.destroyed) return Promise.resolve({ kind: 'aborted' });
  const declared = declaredLength(request);
  const refusedUpFront = declared === undefined ? undefined : refuse(declared);
  if (refusedUpFront !== undefined && (declared ?? 0) > drain.maxBytes) {
    // Not a byte is read: the connection closes with the answer.
    return Promise.resolve({ kind: 'too-large', refusal: refusedUpFront, drained: false });
  }
  return new Promise((resolve) => {
    // Node's parser ends the body at the declared length, so it fits exactly.
    let buffer =
      refusedUpFront === undefined && declared !== undefined
        ? Buffer.allocUnsafe(declared)
        : undefined;
    let chunks: Buffer[] = [];
    let size = 0;
    let refusal = refusedUpFront;
    let timer: NodeJS.Timeout | undefined;

    const finish = (outcome: BodyRead) => {
      clearTimeout(timer);
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onGone);
      request.off('close', onGone);
      resolve(outcome);
    };
    const startDraining = (found: PlatformRefusal) => {
      refusal = found;
      buffer = undefined;
      chunks = [];
      timer = setTimeout(() => {
        finish({ kind: 'too-large', refusal: found, drained: false });
      }, drain.maxMs);
    };
    function onData(chunk: Buffer) {
      size += chunk.length;
      if (refusal !== undefined) {
        if (size > drain.maxBytes) finish({ kind: 'too-large', refusal, drained: false });
        return;
      }
      const over = refuse(size);
      if (over !== undefined) {
        startDraining(over);
        return;
      }
      if (buffer === undefined) chunks.push(chunk);
      else chunk.copy(buffer, size - chunk.length);
    }
    function onEnd() {
      if (!request.complete) {
        finish({ kind: 'aborted' });
        return;
      }
      if (refusal !== undefined) {
        finish({ kind: 'too-large', refusal, drained: true });
        return;
      }
      finish({
        kind: 'read',
        body: buffer === undefined ? Buffer.concat(chunks, size) : buffer.subarray(0, size),
      });
    }
    function onGone() {
      finish({ kind: 'aborted' });
    }

    if (refusal !== undefined) startDraining(refusal);
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onGone);
    request.on('close', onGone);
  });
}
