import type { IncomingMessage } from 'node:http';
import { type PlatformRefusal, refuseRequestBody } from './platform-limits.ts';

/**
 * How much of a refused body is still read, and for how long. A client that sends its whole
 * body before reading the answer (`fetch`, Python's `requests`) sees the 413 only if the body
 * was read: a socket closed with bytes unread resets, and the client sees a broken pipe. Past
 * either bound the answer goes at once, as a body that large is no honest mistake.
 */
export interface DrainLimits {
  readonly maxBytes: number;
  readonly maxMs: number;
}

/** The contract's 50 MB upload, form and all, sent to the multipart route by mistake. */
export const OVERSIZE_DRAIN: DrainLimits = { maxBytes: 64 * 1024 * 1024, maxMs: 20_000 };

export type BodyRead =
  | { readonly kind: 'read'; readonly body: Buffer }
  /** `drained`: every byte was read, so the answer reaches the client. */
  | { readonly kind: 'too-large'; readonly refusal: PlatformRefusal; readonly drained: boolean }
  /** The client went away before its body was complete. */
  | { readonly kind: 'aborted' };

/**
 * The whole body, or its refusal (API Gateway's 10 MiB by default) by the declared length or
 * the bytes read, the rest read and dropped within `drain`. Events, not `for await`: leaving
 * that loop destroys the socket the answer has to go out on.
 */
export function readRequestBody(
  request: IncomingMessage,
  drain: DrainLimits,
  refuse: (bytes: number) => PlatformRefusal | undefined = refuseRequestBody,
): Promise<BodyRead> {
  // Gone while the authorizer ran: no event will come.
  if (request.destroyed) return Promise.resolve({ kind: 'aborted' });
  const declared = Number(request.headers['content-length'] ?? 0);
  let refusal = Number.isSafeInteger(declared) ? refuse(declared) : undefined;
  if (refusal !== undefined && declared > drain.maxBytes) {
    return Promise.resolve({ kind: 'too-large', refusal, drained: false });
  }
  // The body's chunks, counted as they come; once refused, the rest dropped within `drain`.
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let timer: NodeJS.Timeout | undefined;
    const finish = (outcome: BodyRead) => {
      clearTimeout(timer);
      request.off('data', onData).off('end', onEnd).off('error', onGone).off('close', onGone);
      resolve(outcome);
    };
    const startDraining = (found: PlatformRefusal) => {
      refusal = found;
      chunks.length = 0;
      timer = setTimeout(() => {
        finish({ kind: 'too-large', refusal: found, drained: false });
      }, drain.maxMs);
    };
    function onData(chunk: Buffer) {
      size += chunk.length;
      if (refusal === undefined) {
        const over = refuse(size);
        if (over === undefined) chunks.push(chunk);
        else startDraining(over);
      } else if (size > drain.maxBytes) finish({ kind: 'too-large', refusal, drained: false });
    }
    function onEnd() {
      if (!request.complete) finish({ kind: 'aborted' });
      else if (refusal !== undefined) finish({ kind: 'too-large', refusal, drained: true });
      else finish({ kind: 'read', body: Buffer.concat(chunks, size) });
    }
    function onGone() {
      finish({ kind: 'aborted' });
    }
    if (refusal !== undefined) startDraining(refusal);
    request.on('data', onData).on('end', onEnd).on('error', onGone).on('close', onGone);
  });
}
