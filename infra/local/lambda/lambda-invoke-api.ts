import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Context } from 'aws-lambda';
import { LOCAL_REGION } from '../stage/stand-ins.ts';
import { checkSigV4, type Credentials } from '../sigv4-check.ts';
import { createHandlerLoader, type LocalWiring } from './handler-loader.ts';
import { newInvocationLog, logTail } from './invocation-logs.ts';
import { invokeAsLambda, InvocationTimedOut, timedOutMessage } from './lambda-context.ts';
import { refuseEvent } from '../gateway/platform-limits.ts';
import { OVERSIZE_DRAIN, readRequestBody } from '../gateway/request-body.ts';
import { type LocalFunction, STACK_FUNCTIONS } from './stack-functions.ts';

const INVOCATIONS = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;

/** A refusal: its status, the error type the SDK names its exception by, our message. */
class Refusal extends Error {
  readonly status: number;
  readonly type: string;
  constructor(status: number, type: string, message: string) {
    super(message);
    [this.status, this.type] = [status, type];
  }
}

function sendRefusal(response: ServerResponse, { status, type, message }: Refusal): void {
  const text = JSON.stringify({ message });
  response.writeHead(status, {
    'content-type': 'application/json',
    'x-amzn-errortype': type,
    'content-length': Buffer.byteLength(text),
    ...(response.req.complete ? {} : { connection: 'close' }),
  });
  response.end(text);
}

/**
 * The signed body, or a refusal. A web page gives itself away by `Origin` or `Sec-Fetch-*`
 * (no SDK sends them), and the stage's credentials are no secret to it. What the headers
 * refuse is answered before the body is read, and past Lambda's 6 MiB none of it is kept.
 */
async function readSignedBody(
  request: IncomingMessage,
  credentials: Credentials,
): Promise<Buffer | undefined> {
  if (request.headers.origin !== undefined || request.headers['sec-fetch-site'] !== undefined) {
    throw new Refusal(403, 'AccessDeniedException', 'No request from a web page');
  }
  const signing = { credentials, region: LOCAL_REGION, service: 'lambda' };
  const { method = '', url = '/', headers } = request;
  const check = async (body: Buffer | null) => {
    const refused = await checkSigV4({ method, url, headers, body }, signing);
    if (refused !== undefined) throw new Refusal(refused.status, refused.type, refused.message);
  };
  await check(null);
  const read = await readRequestBody(request, OVERSIZE_DRAIN, refuseEvent);
  if (read.kind === 'aborted') return undefined;
  if (read.kind === 'too-large') {
    throw new Refusal(413, 'RequestEntityTooLargeException', 'The event is over 6 MiB');
  }
  await check(read.body);
  return read.body;
}

/** The function the path names (`Name`, `Name:qualifier` or its ARN), and the event. */
function invocationOf(
  request: IncomingMessage,
  body: Buffer,
  functions: ReadonlyMap<string, LocalFunction>,
) {
  const named = INVOCATIONS.exec((request.url ?? '/').split('?')[0] ?? '/');
  if (request.method !== 'POST' || named === null) {
    throw new Refusal(404, 'UnknownOperationException', 'Unknown operation');
  }
  const given = decodeURIComponent(named[1] ?? '');
  const name = /^(?:arn:aws:lambda:[^:]*:[^:]*:function:)?([^:]+)/.exec(given)?.[1] ?? given;
  const fn = functions.get(name);
  if (fn === undefined) throw new Refusal(404, 'ResourceNotFoundException', `No function ${name}`);
  const text = body.toString('utf8');
  try {
    return { name, fn, event: text.trim() === '' ? {} : (JSON.parse(text) as unknown) };
  } catch {
    throw new Refusal(400, 'InvalidRequestContentException', 'The event is not JSON');
  }
}

/** What the Node.js runtime hands back for an error: a thrown one, or the timeout's. */
function errorPayload(error: unknown, fn: LocalFunction) {
  if (error instanceof InvocationTimedOut) {
    return { errorType: 'Sandbox.Timedout', errorMessage: timedOutMessage(fn.timeoutSeconds) };
  }
  return error instanceof Error
    ? { errorType: error.name, errorMessage: error.message, trace: (error.stack ?? '').split('\n') }
    : { errorType: 'Error', errorMessage: String(error), trace: [] };
}

type Loader = ReturnType<typeof createHandlerLoader>;

/** One invocation: its result, or the runtime's error payload; and what it logged. */
async function run(load: Loader, name: string, fn: LocalFunction, event: unknown) {
  const requestId = randomUUID();
  const log = newInvocationLog();
  const handle = async (context: Context) => (await load(fn.entry))(event, context);
  const outcome = await log
    .capture(() => invokeAsLambda(name, fn, handle, { requestId }))
    .then(
      (result) => ({ payload: result ?? null, failed: false }),
      (error: unknown) => ({ payload: errorPayload(error, fn), failed: true }),
    );
  return { ...outcome, requestId, log: log.text() };
}

interface InvokeApiOptions {
  readonly wiring: LocalWiring;
  readonly credentials: Credentials;
  readonly functions?: ReadonlyMap<string, LocalFunction>;
}

/** One signed request, run and answered: RequestResponse, the one invocation type served. */
async function serve(
  { options, load }: { readonly options: InvokeApiOptions; readonly load: Loader },
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const body = await readSignedBody(request, options.credentials);
  if (body === undefined) return;
  const { name, fn, event } = invocationOf(request, body, options.functions ?? STACK_FUNCTIONS);
  const type = request.headers['x-amz-invocation-type'] ?? 'RequestResponse';
  const only = `The local stage runs only RequestResponse invocations, not ${String(type)}`;
  if (type !== 'RequestResponse') throw new Refusal(400, 'InvalidParameterValueException', only);
  const { requestId, payload, failed, log } = await run(load, name, fn, event);
  const answer = JSON.stringify(payload);
  response.writeHead(200, {
    'content-type': 'application/json',
    'x-amzn-requestid': requestId,
    ...(failed ? { 'x-amz-function-error': 'Unhandled' } : {}),
    ...(request.headers['x-amz-log-type'] === 'Tail' ? { 'x-amz-log-result': logTail(log) } : {}),
    'content-length': Buffer.byteLength(answer),
  });
  response.end(answer);
}

/**
 * Lambda's Invoke API (https://docs.aws.amazon.com/lambda/latest/api/API_Invoke.html), as `sam
 * local start-lambda` offers it to `npm run invoke` and `aws lambda invoke --endpoint-url`: the
 * stage's functions, for a request signed with the stage's credentials.
 */
export function createLambdaInvokeApi(options: InvokeApiOptions): RequestListener {
  const served = { options, load: createHandlerLoader(options.wiring) };
  return (request, response) => {
    serve(served, request, response).catch((error: unknown) => {
      if (error instanceof Refusal) {
        request.resume();
        sendRefusal(response, error);
        return;
      }
      console.error('[lambda] invocation request failed:', error);
      if (response.headersSent) response.destroy();
      else sendRefusal(response, new Refusal(500, 'ServiceException', 'Internal error'));
    });
  };
}
