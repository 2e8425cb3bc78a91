/**
 * The local gateway's own answers, where API Gateway answers instead of the function: a
 * function that gives no answer by its timeout, API Gateway's integration timeout, and a body
 * over its limit that is too large or too slow to read to its end. Real HTTP, against the
 * gateway module alone, with a route function that simply runs too long
 * (test/support/slow-route-function.ts); the service's own functions are in
 * test/hardening/function-timeouts.test.ts and test/hardening/platform-limits.test.ts.
 */
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ApiRoute } from '#shared/api/routes.ts';
import { createGateway, type RequestLogLine } from '#infra/local/gateway/gateway.ts';
import type { LocalWiring } from '#infra/local/lambda/handler-loader.ts';
import {
  API_GATEWAY_MAX_BODY_BYTES,
  eventBytes,
  FUNCTION_TIMED_OUT,
  INTEGRATION_TIMED_OUT,
} from '#infra/local/gateway/platform-limits.ts';
import { eventually } from '#test/support/eventually.ts';
import { waitLimit } from '#test/support/wait-limit.ts';

const ENTRY = 'test/support/slow-route-function.ts';
const route = (method: 'GET' | 'POST', path: string, functionId: string): ApiRoute => ({
  method,
  path,
  functionId,
  entry: ENTRY,
  auth: 'none',
});
/** Short timeouts, so that the platform's answers come quickly; the rules are the same. */
const FUNCTIONS = new Map([
  ['Hasty', { entry: ENTRY, timeoutSeconds: 0.2, memoryMb: 128 }],
  ['Patient', { entry: ENTRY, timeoutSeconds: 60, memoryMb: 128 }],
]);
const INTEGRATION_TIMEOUT_MS = 400;
const DRAIN = { maxBytes: 16 * 1024 * 1024, maxMs: 1500 };

let server: Server;
let base: string;
let port: number;
const lines: RequestLogLine[] = [];

beforeAll(async () => {
  server = createServer(
    createGateway({
      routes: [
        route('GET', '/hasty', 'Hasty'),
        route('GET', '/patient', 'Patient'),
        route('POST', '/upload', 'Hasty'),
      ],
      // The route function reads no adapter: the stage's wiring is never reached.
      wiring: {} as LocalWiring,
      authorize: () => Promise.reject(new Error('No route here needs a token')),
      functions: FUNCTIONS,
      integrationTimeoutMs: INTEGRATION_TIMEOUT_MS,
      drain: DRAIN,
      onRequest: (line) => lines.push(line),
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${String(port)}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** What API Gateway sends itself: its JSON message, and its request id. */
async function expectPlatformAnswer(
  response: Response,
  answer: { status: number; body: { message: string } },
) {
  expect(response.status).toBe(answer.status);
  expect(response.headers.get('content-type')).toBe('application/json');
  expect(response.headers.get('apigw-requestid')).toMatch(/^[A-Za-z0-9+/]{14}=$/);
  expect(await response.json()).toEqual(answer.body);
}

const saidLine = (said: { mock: { calls: unknown[][] } }, text: string) =>
  said.mock.calls.some(([first]) => first === text);

describe('a function that gives no answer by its timeout', () => {
  it('gets API Gateway’s 500 at its own timeout; its late answer is said, never sent', async () => {
    const said = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    expect((await fetch(`${base}/hasty?ms=0`)).status).toBe(200);
    const response = await fetch(`${base}/hasty?ms=1000`);
    await expectPlatformAnswer(response, FUNCTION_TIMED_OUT);
    expect(FUNCTION_TIMED_OUT.body).toEqual({ message: 'Internal Server Error' });
    const requestId = response.headers.get('apigw-requestid') ?? '';
    const line = lines.find((l) => l.requestId === requestId);
    expect(line).toMatchObject({ status: 500, functionId: 'Hasty' });
    expect(line?.ms).toBeGreaterThanOrEqual(200);
    expect(saidLine(said, `[Hasty] Task timed out after 0.20 seconds (request ${requestId})`)).toBe(
      true,
    );
    await eventually(() =>
      saidLine(
        said,
        `[Hasty] answered after its timeout; the answer is dropped (request ${requestId})`,
      ),
    );
  });

  it('gets API Gateway’s 503 at the integration timeout when its own is longer', async () => {
    const said = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const response = await fetch(`${base}/patient?ms=1500`);
    await expectPlatformAnswer(response, INTEGRATION_TIMED_OUT);
    expect(INTEGRATION_TIMED_OUT.body).toEqual({ message: 'Service Unavailable' });
    const requestId = response.headers.get('apigw-requestid') ?? '';
    const line = lines.find((l) => l.requestId === requestId);
    expect(line).toMatchObject({ status: 503, functionId: 'Patient' });
    expect(line?.ms).toBeGreaterThanOrEqual(INTEGRATION_TIMEOUT_MS);
    await eventually(() =>
      saidLine(
        said,
        `[Patient] answered after API Gateway's timeout; the answer is dropped (request ${requestId})`,
      ),
    );
  });
});

/**
 * A client on a raw socket: sends `head`, then `body` (all of it, or less than it declares),
 * and reads until the gateway closes the connection.
 */
function rawExchange(head: string, body: Buffer): Promise<{ answer: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      resolve({
        answer: Buffer.concat(received).toString(),
        ms: performance.now() - started,
      });
    });
    socket.write(head);
    socket.write(body);
  });
}

const uploadHead = (declared: number) =>
  `POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/octet-stream\r\ncontent-length: ${String(declared)}\r\n\r\n`;
const TOO_LARGE = '{"message":"Request Entity Too Large"}';

describe('a body over API Gateway’s limit', () => {
  it('too large to read: the 413 at once, not a byte read, and the connection closed', async () => {
    const said = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { answer } = await rawExchange(uploadHead(DRAIN.maxBytes + 1), Buffer.alloc(0));
    expect(answer).toMatch(/^HTTP\/1\.1 413 Payload Too Large\r\n/);
    expect(answer.toLowerCase()).toContain('\r\nconnection: close\r\n');
    expect(answer.endsWith(`\r\n\r\n${TOO_LARGE}`)).toBe(true);
    expect(said).toHaveBeenCalledWith(
      '[gateway] POST /upload: a body too large or too slow to read to its end; 413, connection closed',
    );
  });

  it('too slow to read: the 413 once the drain time is up, and the connection closed', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    // Over the limit, under the drain's bytes, but the client stops sending part way.
    const { answer, ms } = await rawExchange(
      uploadHead(DRAIN.maxBytes),
      Buffer.alloc(API_GATEWAY_MAX_BODY_BYTES + 1),
    );
    expect(answer).toMatch(/^HTTP\/1\.1 413 Payload Too Large\r\n/);
    expect(answer.endsWith(`\r\n\r\n${TOO_LARGE}`)).toBe(true);
    expect(ms).toBeGreaterThanOrEqual(DRAIN.maxMs);
    expect(ms).toBeLessThan(waitLimit(10_000));
  });

  it('a client gone while its body is read: nothing answered, the 499 logged', async () => {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    // Refused on its declared length, and being read to its end, when the client goes.
    socket.write(uploadHead(DRAIN.maxBytes));
    socket.write(Buffer.alloc(1024), () => {
      socket.destroy();
    });
    await eventually(() =>
      lines.some((line) => line.status === 499 && line.path === '/upload') ? true : undefined,
    );
  });

  it('read to its end within the bounds: the 413 after the last byte, then closed', async () => {
    const said = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { answer } = await rawExchange(
      uploadHead(API_GATEWAY_MAX_BODY_BYTES + 1),
      Buffer.alloc(API_GATEWAY_MAX_BODY_BYTES + 1),
    );
    expect(answer).toMatch(/^HTTP\/1\.1 413 Payload Too Large\r\n/);
    expect(answer.endsWith(`\r\n\r\n${TOO_LARGE}`)).toBe(true);
    expect(said).not.toHaveBeenCalled();
  });
});

describe("an event's size, as Lambda's 6 MiB limit counts it", () => {
  // A base64 body is measured without being written out again: the size is still the JSON's.
  it.each([
    [
      'a base64 body',
      { version: '2.0', headers: { a: 'é "\\' }, body: 'QUJD+/8=', isBase64Encoded: true },
    ],
    [
      'a text body with escapes',
      { version: '2.0', body: '{"x":"é\\n\\"q\u0001"}', isBase64Encoded: false },
    ],
    ['no body', { version: '2.0', headers: { 'user-agent': 'ü' }, isBase64Encoded: false }],
  ])('%s: the bytes of its JSON in UTF-8', (_, event) => {
    expect(eventBytes(event)).toBe(Buffer.byteLength(JSON.stringify(event)));
  });
});
