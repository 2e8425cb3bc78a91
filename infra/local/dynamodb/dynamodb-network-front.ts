import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { endpointOf } from '../object-store/object-store-front.ts';
import { OVERSIZE_DRAIN, readRequestBody } from '../gateway/request-body.ts';
import { checkSigV4, type Credentials } from '../sigv4-check.ts';
import type { RunningEmulator } from '../stage/emulators.ts';
import { closeServer, listen } from '../stage/listening.ts';
import { isLoopback, isWildcard } from '../stage/public-host.ts';

/** Over DynamoDB's largest request (a BatchWriteItem of 25 items of 400 KB, in JSON). */
const overLimit = (bytes: number) =>
  bytes > 16 * 1024 * 1024
    ? { status: 400, body: { message: 'Request size exceeded 16 MB' }, headers: {} }
    : undefined;

/**
 * DynamoDB's JSON error, `__type` and `message`
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html).
 * Answered before the body was all read, the connection closes.
 */
function refuse(response: ServerResponse, type: string, message: string, status = 400): void {
  if (!response.headersSent) {
    response.writeHead(status, {
      'content-type': 'application/x-amz-json-1.0',
      ...(response.req.complete ? {} : { connection: 'close' }),
    });
  }
  response.end(JSON.stringify({ __type: `com.amazon.coral.service#${type}`, message }));
}

/**
 * DynamoDB Local for callers beyond loopback (a SAM container, another machine): it takes any
 * signature, so this front listens on `host` in its stead and passes on only requests signed
 * with the stage's credentials. None on loopback, where only this machine reaches DynamoDB Local.
 */
export async function dynamoDbFrontFor(
  host: string,
  options: { readonly target: string; readonly credentials: Credentials; readonly region: string },
): Promise<RunningEmulator | undefined> {
  if (isLoopback(host)) return undefined;
  const target = new URL(options.target);
  const signing = { credentials: options.credentials, region: options.region, service: 'dynamodb' };
  const server = createServer((request, response) => {
    void (async () => {
      // POST / only; no body is read of a request its headers refuse.
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
      const read = await readRequestBody(request, OVERSIZE_DRAIN, overLimit);
      if (read.kind === 'aborted') return;
      if (read.kind === 'too-large') {
        refuse(response, 'ValidationException', read.refusal.body.message);
        return;
      }
      const { body } = read;
      const refusal = await checkSigV4({ ...received, body }, signing);
      if (refusal !== undefined) {
        refuse(response, refusal.type, refusal.message);
        return;
      }
      await passOn(request, body, target, response);
    })().catch((error: unknown) => {
      refuse(response, 'InternalServerError', String(error), 500);
    });
  });
  server.keepAliveTimeout = 5000;
  const port = await listen(server, 0, host);
  return {
    endpoint: endpointOf(isWildcard(host) ? '127.0.0.1' : host, port),
    stop: () => closeServer(server),
  };
}

/** A checked request to DynamoDB Local, and its answer back. */
async function passOn(
  request: IncomingMessage,
  body: Buffer,
  target: URL,
  response: ServerResponse,
) {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    // fetch sets these itself, for the body it sends.
    if (value === undefined || ['host', 'connection', 'content-length'].includes(name)) continue;
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
}
