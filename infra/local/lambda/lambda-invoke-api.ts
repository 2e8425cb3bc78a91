import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { LOCAL_REGION } from '../stage/emulators.ts';
import type { Credentials } from '../sigv4-check.ts';
import { createHandlerLoader, type LocalWiring } from './handler-loader.ts';
import { newInvocationLog, logTail } from './invocation-logs.ts';
import {
  InvocationTimedOut,
  localLambdaContext,
  timedOutMessage,
  withinTimeout,
} from './lambda-context.ts';
import { LAMBDA_MAX_REQUEST_BYTES, refuseEvent } from '../gateway/platform-limits.ts';
import { OVERSIZE_DRAIN, readRequestBody } from '../gateway/request-body.ts';
import { checkSigV4 } from '../sigv4-check.ts';
import { type LocalFunction, STACK_FUNCTIONS } from './stack-functions.ts';

const ACCOUNT = '000000000000';
const INVOCATIONS = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;

const functionArn = (name: string) => `arn:aws:lambda:${LOCAL_REGION}:${ACCOUNT}:function:${name}`;

/** `Name`, `Name:qualifier`, or its ARN, as Invoke takes them; the name alone. */
function functionNameOf(given: string): string {
  const arn = /^arn:aws:lambda:[^:]*:[^:]*:function:([^:]+)/.exec(given);
  return arn?.[1] ?? given.split(':')[0] ?? given;
}

/**
 * An error of the Invoke API, in the shape the SDK reads (restJson1): Lambda's own body, or the
 * one AWS's front door answers a signature (`{message}`) or a size (`{Message}`) it refuses
 * with. Answered before the body is all read, the connection closes: no more of it is read.
 */
function apiError(response: ServerResponse, status: number, type: string, body: object): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'x-amzn-errortype': type,
    'x-amzn-requestid': randomUUID(),
    'content-length': Buffer.byteLength(text),
    ...(response.req.complete ? {} : { connection: 'close' }),
  });
  response.end(text);
}

const userError = (message: string) => ({ Type: 'User', Message: message });

/**
 * A request a web page made: browsers send `Origin` (and `Sec-Fetch-*`) on every cross-origin
 * POST, and no SDK or CLI does. The stage's credentials are no secret, so a page could sign a
 * request itself; only its origin gives it away.
 */
const fromBrowser = (request: IncomingMessage): boolean =>
  request.headers.origin !== undefined || request.headers['sec-fetch-site'] !== undefined;

/** What the Node.js runtime reports for an error a handler threw. */
const thrownPayload = (error: unknown) =>
  error instanceof Error
    ? { errorType: error.name, errorMessage: error.message, trace: (error.stack ?? '').split('\n') }
    : { errorType: 'Error', errorMessage: String(error), trace: [] };

/**
 * Lambda's Invoke API (`POST /2015-03-31/functions/{name}/invocations`), on the local stage:
 * what `sam local start-lambda` offers, so `npm run invoke` and `aws lambda invoke
 * --endpoint-url` reach the stage's functions with the stage's own adapters, settings and
 * queues. Each invocation gets a Lambda context and its function's timeout; a handler that
 * throws or runs out of time is a 200 with `X-Amz-Function-Error: Unhandled`, as on AWS.
 * `X-Amz-Log-Type: Tail` returns the invocation's last 4 KB of log. `Event` invocations are
 * accepted (202) and run in the background; `DryRun` only checks (204).
 */
export function createLambdaInvokeApi(options: {
  readonly root: string;
  readonly wiring: LocalWiring;
  /** The stage's own: a request signed with any others is refused. */
  readonly credentials: Credentials;
  readonly functions?: ReadonlyMap<string, LocalFunction>;
}): RequestListener {
  const functions = options.functions ?? STACK_FUNCTIONS;
  const signing = { credentials: options.credentials, region: LOCAL_REGION, service: 'lambda' };
  const load = createHandlerLoader(options.root, options.wiring);

  const run = async (name: string, fn: LocalFunction, event: unknown) => {
    const requestId = randomUUID();
    const timeoutMs = fn.timeoutSeconds * 1000;
    const log = newInvocationLog();
    const started = performance.now();
    log.note(`START RequestId: ${requestId} Version: $LATEST`);
    const outcome = await log.capture(async () => {
      try {
        const handler = await load(fn.entry);
        const context = {
          ...localLambdaContext(name, timeoutMs, fn.memoryMb),
          awsRequestId: requestId,
        };
        const late = (outcome: PromiseSettledResult<unknown>) => {
          console.error(
            `[${name}] ${outcome.status === 'fulfilled' ? 'answered' : 'failed'} after its timeout; nothing of it is returned (request ${requestId})`,
          );
        };
        return { result: await withinTimeout(handler(event, context), timeoutMs, late) };
      } catch (error) {
        return { error };
      }
    });
    const ms = performance.now() - started;
    let payload: unknown;
    let failed = true;
    if ('result' in outcome) {
      payload = outcome.result ?? null;
      failed = false;
    } else if (outcome.error instanceof InvocationTimedOut) {
      const message = `${new Date().toISOString()} ${requestId} ${timedOutMessage(fn.timeoutSeconds)}`;
      log.note(message);
      payload = { errorType: 'Sandbox.Timedout', errorMessage: message };
    } else {
      payload = thrownPayload(outcome.error);
      log.note(
        `${new Date().toISOString()}\t${requestId}\tERROR\tInvoke Error \t${JSON.stringify(payload)}`,
      );
    }
    const usedMb = Math.ceil(process.memoryUsage().rss / 2 ** 20);
    log.note(`END RequestId: ${requestId}`);
    log.note(
      `REPORT RequestId: ${requestId}\tDuration: ${ms.toFixed(2)} ms\tBilled Duration: ${String(Math.ceil(ms))} ms\tMemory Size: ${String(fn.memoryMb)} MB\tMax Memory Used: ${String(usedMb)} MB`,
    );
    return { requestId, payload, failed, log: log.text() };
  };

  const serve = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (fromBrowser(request)) {
      request.resume();
      apiError(
        response,
        403,
        'AccessDeniedException',
        userError('The local Invoke API takes no request from a web page'),
      );
      return;
    }
    const received = {
      method: request.method ?? '',
      url: request.url ?? '/',
      headers: request.headers,
    };
    // What the headers refuse (no signature, another key) is answered before the body is read.
    const unsigned = await checkSigV4({ ...received, body: null }, signing);
    if (unsigned !== undefined) {
      request.resume();
      apiError(response, unsigned.status, unsigned.type, { message: unsigned.message });
      return;
    }
    // Lambda's 6 MiB, on the declared length or counted as the bytes come: none is kept past
    // it, and no more is read than the gateway reads of a body it refuses.
    const read = await readRequestBody(request, OVERSIZE_DRAIN, refuseEvent);
    if (read.kind === 'aborted') return;
    if (read.kind === 'too-large') {
      apiError(response, 413, 'RequestEntityTooLargeException', {
        Message: `Request must be smaller than ${String(LAMBDA_MAX_REQUEST_BYTES)} bytes for the InvokeFunction operation`,
      });
      return;
    }
    const { body } = read;
    const refused = await checkSigV4({ ...received, body }, signing);
    if (refused !== undefined) {
      apiError(response, refused.status, refused.type, { message: refused.message });
      return;
    }
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const invocation = INVOCATIONS.exec(path);
    if (request.method !== 'POST' || invocation === null) {
      apiError(response, 404, 'UnknownOperationException', userError('Unknown operation'));
      return;
    }
    const name = functionNameOf(decodeURIComponent(invocation[1] ?? ''));
    const fn = functions.get(name);
    if (fn === undefined) {
      apiError(
        response,
        404,
        'ResourceNotFoundException',
        userError(`Function not found: ${functionArn(name)}`),
      );
      return;
    }
    const text = body.toString('utf8');
    let event: unknown = {};
    if (text.trim() !== '') {
      try {
        event = JSON.parse(text);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        apiError(
          response,
          400,
          'InvalidRequestContentException',
          userError(
            `Could not parse request body into json: Could not parse payload into json: ${reason}`,
          ),
        );
        return;
      }
    }
    const invocationType = request.headers['x-amz-invocation-type'] ?? 'RequestResponse';
    if (invocationType === 'DryRun') {
      response.writeHead(204, { 'x-amzn-requestid': randomUUID() }).end();
      return;
    }
    if (invocationType === 'Event') {
      response.writeHead(202, { 'x-amzn-requestid': randomUUID() }).end();
      void run(name, fn, event).then(({ failed, log }) => {
        if (failed) console.error(`[${name}] asynchronous invocation failed:\n${log}`);
      });
      return;
    }
    const { requestId, payload, failed, log } = await run(name, fn, event);
    const answer = JSON.stringify(payload);
    response.writeHead(200, {
      'content-type': 'application/json',
      'x-amzn-requestid': requestId,
      'x-amz-executed-version': '$LATEST',
      ...(failed ? { 'x-amz-function-error': 'Unhandled' } : {}),
      ...(request.headers['x-amz-log-type'] === 'Tail' ? { 'x-amz-log-result': logTail(log) } : {}),
      'content-length': Buffer.byteLength(answer),
    });
    response.end(answer);
  };

  return (request, response) => {
    serve(request, response).catch((error: unknown) => {
      console.error('[lambda] invocation request failed:', error);
      if (!response.headersSent)
        apiError(response, 500, 'ServiceException', userError('Internal error'));
      else response.destroy();
    });
  };
}
