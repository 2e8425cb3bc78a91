import { createServer, type IncomingMessage, request as forward } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One call as the proxy sees it. */
interface HeldCall {
  readonly method: string;
  readonly path: string;
  /** DynamoDB's operation, from `X-Amz-Target` (`GetItem`, `Query`, …). */
  readonly operation: string | undefined;
  /** The request's body, as text: a DynamoDB call's keys are in it. */
  readonly body: string;
}

export interface HoldingProxy {
  readonly url: string;
  /** From now on, the calls `which` picks wait here, unanswered, until `release()`. */
  hold(which: (call: HeldCall) => boolean): void;
  /** How many calls are waiting now. */
  held(): number;
  /** Sends every waiting call on, and holds no more. */
  release(): void;
  close(): Promise<void>;
}

const readAll = async (message: IncomingMessage): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of message as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
};

/**
 * An HTTP proxy in front of DynamoDB Local or the object store that can hold calls: a dependency that
 * stops answering, so the function that waits on it runs past its timeout, for real. The
 * held calls go through, late, on `release()`.
 */
export async function startHoldingProxy(target: string): Promise<HoldingProxy> {
  const upstream = new URL(target);
  let which: ((call: HeldCall) => boolean) | undefined;
  let waiting: (() => void)[] = [];
  const server = createServer((request, response) => {
    (async () => {
      const body = await readAll(request);
      const header = request.headers['x-amz-target'];
      const call: HeldCall = {
        method: request.method ?? 'GET',
        path: request.url ?? '/',
        operation: typeof header === 'string' ? header.split('.').at(-1) : undefined,
        body: body.toString('utf8'),
      };
      const send = () => {
        const proxied = forward(
          {
            host: upstream.hostname,
            port: upstream.port,
            method: call.method,
            path: call.path,
            headers: request.headers,
          },
          (answer) => {
            response.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(response);
          },
        );
        proxied.on('error', () => {
          response.destroy();
        });
        proxied.end(body);
      };
      if (which?.(call) === true) waiting.push(send);
      else send();
    })().catch(() => {
      response.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    hold: (next) => {
      which = next;
    },
    held: () => waiting.length,
    release: () => {
      which = undefined;
      const sending = waiting;
      waiting = [];
      for (const send of sending) send();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
