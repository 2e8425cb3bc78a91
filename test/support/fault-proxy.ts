import { createServer, request as forward, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One call as the proxy sees it: enough to say which adapter operation it is. */
export interface ProxiedCall {
  readonly method: string;
  readonly path: string;
  /** DynamoDB's operation, from `X-Amz-Target` (`PutItem`, `TransactWriteItems`, …). */
  readonly operation: string | undefined;
  /** The request body as text (a DynamoDB call's JSON; an S3 object's bytes). */
  readonly body: string;
}

/** What the service answers when it fails, as the SDK reads it. */
export interface FaultAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
  /** Forward the call first, so the write lands, then lose its answer. */
  readonly afterForwarding?: boolean;
}

export const DYNAMODB_THROTTLED: FaultAnswer = {
  status: 400,
  contentType: 'application/x-amz-json-1.0',
  body: JSON.stringify({
    __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
    message: 'The level of configured provisioned throughput for the table was exceeded.',
  }),
};

export const DYNAMODB_INTERNAL_ERROR: FaultAnswer = {
  status: 500,
  contentType: 'application/x-amz-json-1.0',
  body: JSON.stringify({
    __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError',
    message: 'Internal server error',
  }),
};

const s3Error = (status: number, code: string, message: string): FaultAnswer => ({
  status,
  contentType: 'application/xml',
  body: `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message><RequestId>FAULT</RequestId></Error>`,
});
export const S3_SLOW_DOWN = s3Error(503, 'SlowDown', 'Please reduce your request rate.');
export const S3_INTERNAL_ERROR = s3Error(500, 'InternalError', 'We encountered an internal error.');

/** mulberry32: a small seeded generator, so a failing run can be run again exactly. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export interface FaultProxy {
  readonly url: string;
  /** Calls seen, and calls failed, by `DynamoDB <operation>` or `S3 <method>`. */
  readonly seen: Map<string, { calls: number; failed: number }>;
  /** Decides each call's fate from now on. */
  setPlan(plan: (call: ProxiedCall) => FaultAnswer | undefined): void;
  close(): Promise<void>;
}

const readAll = async (message: IncomingMessage): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of message as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
};

/**
 * An HTTP proxy in front of DynamoDB Local or the object store that answers some calls as the real
 * service answers a fault (throttling, a 500), or lets a write land and loses its answer.
 * The SDK sees real wire responses and retries as it would on AWS.
 */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  let plan: (call: ProxiedCall) => FaultAnswer | undefined = () => undefined;
  const seen = new Map<string, { calls: number; failed: number }>();
  const server = createServer((request, response) => {
    // A client that goes away mid-call is no fault of the proxy's.
    (async () => {
      const body = await readAll(request);
      const header = request.headers['x-amz-target'];
      const operation = typeof header === 'string' ? header.split('.').at(-1) : undefined;
      const path = request.url ?? '/';
      const call: ProxiedCall = {
        method: request.method ?? 'GET',
        path,
        operation,
        body: body.toString('utf8'),
      };
      const name = operation === undefined ? `S3 ${call.method}` : `DynamoDB ${operation}`;
      const counts = seen.get(name) ?? { calls: 0, failed: 0 };
      seen.set(name, counts);
      counts.calls += 1;
      const fault = plan(call);
      const answerFault = (answer: FaultAnswer) => {
        counts.failed += 1;
        response.writeHead(answer.status, {
          'content-type': answer.contentType,
          'content-length': Buffer.byteLength(answer.body),
        });
        response.end(answer.body);
      };
      if (fault !== undefined && fault.afterForwarding !== true) {
        answerFault(fault);
        return;
      }
      const proxied = forward(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: request.method,
          path,
          headers: request.headers,
        },
        (answer) => {
          void readAll(answer).then((bytes) => {
            if (fault !== undefined) {
              answerFault(fault);
              return;
            }
            response.writeHead(answer.statusCode ?? 502, answer.headers);
            response.end(bytes);
          });
        },
      );
      proxied.on('error', () => {
        response.destroy();
      });
      proxied.end(body);
    })().catch(() => {
      response.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    seen,
    setPlan: (next) => {
      plan = next;
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
