import { createServer, type ServerResponse } from 'node:http';
import { endpointOf } from '../object-store-server.ts';
import { OVERSIZE_DRAIN, readRequestBody } from '../gateway/request-body.ts';
import { checkSigV4, type Credentials } from '../sigv4-check.ts';

/** Over DynamoDB's largest request (a BatchWriteItem of 25 items of 400 KB, in JSON). */
const overLimit = (bytes: number) =>
  bytes > 16 * 1024 * 1024
    ? { status: 400, body: { message: 'Request size exceeded 16 MB' }, headers: {} }
    : undefined;

interface DynamoDbFront {
  /** Where this machine reaches the front: loopback when it listens on every interface. */
  readonly endpoint: string;
  readonly port: number;
  stop(): Promise<void>;
}

/**
 * DynamoDB's answer to a request it will not take, as its JSON protocol writes errors: HTTP 400,
 * `__type` and `message` ("Error handling with DynamoDB",
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html).
 * Answered before the body was all read, the connection closes: nothing more of it is read.
 */
function refuse(response: ServerResponse, type: string, message: string): void {
  response.writeHead(400, {
    'content-type': 'application/x-amz-json-1.0',
    ...(response.req.complete ? {} : { connection: 'close' }),
  });
  response.end(JSON.stringify({ __type: `com.amazon.coral.service#${type}`, message }));
}

/**
 * DynamoDB Local for callers beyond loopback (a SAM CLI container, another machine): it takes
 * any signature, so this front listens on `host` in its stead, lets through only requests
 * signed with the stage's credentials (checked as AWS checks Signature Version 4), and passes
 * them to DynamoDB Local on loopback. DynamoDB Local itself stays on loopback.
 */
async function serveDynamoDbFront(options: {
  readonly host: string;
  readonly port?: number;
  /** DynamoDB Local, on loopback. */
  readonly target: string;
  readonly credentials: Credentials;
  readonly region: string;
}): Promise<DynamoDbFront> {
  const target = new URL(options.target);
  const signing = { credentials: options.credentials, region: options.region, service: 'dynamodb' };
  const server = createServer((request, response) => {
    void (async () => {
      // DynamoDB's JSON protocol is POST / only; nothing else goes on, and no body is read of a
      // request its headers refuse (no or a malformed signature, another access key).
      if (request.method !== 'POST' || request.url !== '/') {
        request.resume();
        refuse(response, 'UnknownOperationException', 'DynamoDB takes POST / only');
        return;
      }
      const received = { method: 'POST', url: '/', headers: request.headers };
      const unsigned = await checkSigV4({ ...received, body: null }, signing);
      if (unsigned !== undefined) {
        request.resume();
        refuse(response, unsigned.type, unsigned.message);
        return;
      }
      // Kept no further than the limit, and read past it only as far as the gateway reads.
      const read = await readRequestBody(request, OVERSIZE_DRAIN, overLimit);
      if (read.kind === 'aborted') return;
      if (read.kind === 'too-large') {
        refuse(response, 'ValidationException', read.refusal.body.message);
        return;
      }
      const { body } = read;
      const refusal = await checkSigV4({ ...received, body }, signing);
      if (refusal !== undefined) {
        // DynamoDB answers every authentication refusal 400, whatever status S3 would use.
        refuse(response, refusal.type, refusal.message);
        return;
      }
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) {
        // fetch sets these itself, for the body it sends.
        if (value === undefined || ['host', 'connection', 'content-length'].includes(name)) {
          continue;
        }
        headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
      const answer = await fetch(new URL('/', target), {
        method: 'POST',
        headers,
        ...(body.length === 0 ? {} : { body }),
      });
      const passed: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        // The body arrives decoded and whole; its length is said anew.
        if (!['content-encoding', 'content-length', 'transfer-encoding'].includes(name)) {
          passed[name] = value;
        }
      });
      response.writeHead(answer.status, passed);
      response.end(Buffer.from(await answer.arrayBuffer()));
    })().catch((error: unknown) => {
      if (!response.headersSent) {
        response.writeHead(500, { 'content-type': 'application/x-amz-json-1.0' });
      }
      response.end(
        JSON.stringify({
          __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError',
          message: error instanceof Error ? error.message : String(error),
        }),
      );
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const reachAt = ['0.0.0.0', '::', ''].includes(options.host) ? '127.0.0.1' : options.host;
  return {
    endpoint: endpointOf(reachAt, port),
    port,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };
}

const LOOPBACK_HOST = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/i;

/**
 * The front for a stage listening on `host`: none on loopback, where its handlers and CLIs
 * reach DynamoDB Local directly and nothing else may.
 */
export async function dynamoDbFrontFor(
  host: string,
  options: Omit<Parameters<typeof serveDynamoDbFront>[0], 'host'>,
): Promise<DynamoDbFront | undefined> {
  return LOOPBACK_HOST.test(host) ? undefined : serveDynamoDbFront({ ...options, host });
}
