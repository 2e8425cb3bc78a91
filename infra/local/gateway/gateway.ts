import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Context } from 'aws-lambda';
import { FALLBACK_FUNCTION } from '#functions/service-functions.ts';
import { createRouteMatcher } from '#shared/api/route-matcher.ts';
import type { ApiRoute } from '#shared/api/routes.ts';
import { HttpError } from '#shared/http/http-errors.ts';
import type { ApiResult } from '#shared/http/responses.ts';
import { eventRoute, newRequestId, splitTarget, toApiGatewayEvent } from './api-gateway-event.ts';
import { createHandlerLoader, type LocalWiring } from '../lambda/handler-loader.ts';
import type { EventClaims } from './jwt-authorizer.ts';
import {
  CallerStoppedWaiting,
  invokeAsLambda,
  InvocationTimedOut,
} from '../lambda/lambda-context.ts';
import {
  API_GATEWAY_INTEGRATION_TIMEOUT_MS,
  eventBytes,
  FUNCTION_TIMED_OUT,
  INTEGRATION_TIMED_OUT,
  type PlatformRefusal,
  refuseEvent,
  refuseResult,
  resultBytes,
} from './platform-limits.ts';
import { type DrainLimits, OVERSIZE_DRAIN, readRequestBody } from './request-body.ts';
import type { CorsRule } from '../../stacks/cors-rules.ts';
import { apiCorsHeaders, withApiCors } from './api-gateway-cors.ts';
import { type LocalFunction, STACK_FUNCTIONS } from '../lambda/stack-functions.ts';

export interface GatewayOptions {
  readonly routes: readonly ApiRoute[];
  readonly wiring: LocalWiring;
  readonly authorize: (authorization: string | undefined) => Promise<EventClaims>;
  /** Each function's timeout and memory by id; the stack's by default. */
  readonly functions?: ReadonlyMap<string, LocalFunction>;
  readonly integrationTimeoutMs?: number;
  /** How much of an over-size body is read before the 413 (request-body.ts). */
  readonly drain?: DrainLimits;
  readonly onRequest?: (line: RequestLogLine) => void;
  /** Sees every response as it goes out, body and all (the tests' contract check). */
  readonly onResponse?: (response: SentResponse) => void;
  /** The HTTP API's CORS configuration; none by default. */
  readonly cors?: CorsRule;
}

interface Exchange {
  readonly method: string;
  readonly path: string;
  readonly status: number;
}

interface SentResponse extends Exchange {
  /** By lower-case name. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

export interface RequestLogLine extends Exchange {
  readonly ms: number;
  readonly requestId: string;
  readonly functionId: string;
}

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Buffer | string;
  readonly cookies?: string[];
}

/** API Gateway's own answer: its JSON message. */
const gatewayAnswer = (status: number, message: string, headers = {}): Answer => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify({ message }),
});

const refusalAnswer = ({ status, body, headers }: PlatformRefusal): Answer =>
  gatewayAnswer(status, body.message, headers);

/** What API Gateway sends for a function result: the structured form, or an inferred 200. */
function resultAnswer(result: unknown): Answer {
  if (typeof result !== 'object' || result === null || !('statusCode' in result)) {
    const body = typeof result === 'string' ? result : JSON.stringify(result ?? null);
    return { status: 200, headers: { 'content-type': 'application/json' }, body };
  }
  const { statusCode, headers = {}, body = '', isBase64Encoded, cookies } = result as ApiResult;
  return {
    status: statusCode ?? 200,
    headers: Object.fromEntries(Object.entries(headers).map(([n, v]) => [n.toLowerCase(), `${v}`])),
    body: Buffer.from(body, isBase64Encoded === true ? 'base64' : 'utf8'),
    ...(cookies && { cookies }),
  };
}

/** A request, once routed. */
interface Call {
  readonly request: IncomingMessage;
  readonly requestId: string;
  readonly target: ReturnType<typeof splitTarget>;
  readonly route: ReturnType<typeof eventRoute>;
  readonly functionId: string;
  readonly entry: string;
  readonly auth: boolean;
}

type Authorized = { readonly claims?: EventClaims } | { readonly refused: Answer };

/** What every request is served with. */
interface Served {
  readonly options: GatewayOptions;
  readonly functions: ReadonlyMap<string, LocalFunction>;
  readonly waitMs: number;
  readonly load: ReturnType<typeof createHandlerLoader>;
}

/** The claims of a protected route's token, or the authorizer's 401. */
async function authorize({ options }: Served, { request, auth }: Call): Promise<Authorized> {
  if (!auth) return {};
  try {
    return { claims: await options.authorize(request.headers.authorization) };
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    request.resume();
    return { refused: gatewayAnswer(error.statusCode, 'Unauthorized', error.headers) };
  }
}

/** The function's answer, or the platform's when it times out, throws or answers too much. */
async function invoke(served: Served, call: Call, event: unknown): Promise<Answer> {
  const { functionId, entry, requestId } = call;
  const { waitMs, load } = served;
  // A function the table does not size runs as long as API Gateway waits.
  const unsized = { timeoutSeconds: waitMs / 1000, memoryMb: 1024 };
  const sizing = served.functions.get(functionId) ?? unsized;
  try {
    const run = async (context: Context) => (await load(entry))(event, context);
    const result = await invokeAsLambda(functionId, sizing, run, { requestId, waitMs });
    const unsent = refuseResult(resultBytes(result));
    if (unsent === undefined) return resultAnswer(result);
    console.error(`[${functionId}] response over Lambda's payload limit`);
    return refusalAnswer(unsent);
  } catch (error) {
    if (error instanceof InvocationTimedOut) return refusalAnswer(FUNCTION_TIMED_OUT);
    if (error instanceof CallerStoppedWaiting) return refusalAnswer(INTEGRATION_TIMED_OUT);
    // A function that throws is a 500 from API Gateway, with nothing of the error.
    console.error(`[${functionId}] invocation failed:`, error);
    return gatewayAnswer(500, 'Internal Server Error');
  }
}

/** The answer, step by step; undefined when the client left before its body was sent. */
async function answer(served: Served, call: Call): Promise<Answer | undefined> {
  const { request, target } = call;
  const authorized = await authorize(served, call);
  if ('refused' in authorized) return authorized.refused;
  const read = await readRequestBody(request, served.options.drain ?? OVERSIZE_DRAIN);
  if (read.kind === 'aborted') return undefined;
  if (read.kind === 'too-large') {
    // The client may see a broken pipe rather than the 413: this says why.
    const cut = `${request.method ?? ''} ${target.rawPath}: a body too large or too slow to read`;
    if (!read.drained) console.warn(`[gateway] ${cut} to its end; 413, connection closed`);
    return refusalAnswer(read.refusal);
  }
  const event = toApiGatewayEvent({
    ...{ request, ...target, ...call.route, body: read.body, ...authorized },
    ...{ requestId: call.requestId, sourceIp: request.socket.remoteAddress ?? '127.0.0.1' },
  });
  // Lambda refuses an event over its request limit: the function never runs.
  const tooLarge = refuseEvent(eventBytes(event));
  return tooLarge === undefined ? invoke(served, call, event) : refusalAnswer(tooLarge);
}

/** Sends an answer with its request id and the HTTP API's CORS; onResponse sees it. */
function sender(options: GatewayOptions, response: ServerResponse, call: Call) {
  const { request, requestId, target } = call;
  const method = (request.method ?? 'GET').toUpperCase();
  const cors = options.cors && apiCorsHeaders(options.cors, { method, headers: request.headers });
  return ({ status, headers, body, cookies }: Answer) => {
    const given = { 'apigw-requestid': requestId, ...headers };
    const sent = cors === undefined ? given : withApiCors(given, cors);
    if (cookies !== undefined) response.setHeader('set-cookie', cookies);
    response.writeHead(status, { ...sent, 'content-length': Buffer.byteLength(body) });
    response.end(body);
    const path = target.rawPath;
    options.onResponse?.({ method, path, status, headers: sent, body: Buffer.from(body) });
    return status;
  };
}

/**
 * The local stand-in for API Gateway's HTTP API: route match, the JWT authorizer on protected
 * routes, the payload 2.0 event, and the very handler module the CDK stack deploys for the
 * route. Unmatched requests go to the fallback function, as they do to `$default` on AWS.
 */
export function createGateway(options: GatewayOptions): RequestListener {
  const match = createRouteMatcher(options.routes);
  const served: Served = {
    options,
    functions: options.functions ?? STACK_FUNCTIONS,
    waitMs: options.integrationTimeoutMs ?? API_GATEWAY_INTEGRATION_TIMEOUT_MS,
    load: createHandlerLoader(options.wiring),
  };
  return (request, response) => {
    const started = performance.now();
    const method = (request.method ?? 'GET').toUpperCase();
    const target = splitTarget(request.url);
    const found = match(method, target.rawPath);
    const route = found.kind === 'route' ? found.route : undefined;
    const call: Call = {
      ...{ request, requestId: newRequestId(), target, auth: route?.auth === 'jwt' },
      ...{ functionId: route?.functionId ?? FALLBACK_FUNCTION.id, route: eventRoute(found) },
      entry: route?.entry ?? FALLBACK_FUNCTION.entry,
    };
    const send = sender(options, response, call);
    const { requestId, functionId } = call;
    const log = (status: number) =>
      options.onRequest?.({
        ...{ method, path: target.rawPath, status, requestId, functionId },
        ms: Math.round(performance.now() - started),
      });
    answer(served, call).then(
      // nginx's 499: logged, never sent, as the connection is gone.
      (ready) => log(ready === undefined ? 499 : send(ready)),
      (error: unknown) => {
        console.error('[gateway] request failed:', error);
        if (response.headersSent) response.destroy();
        else send(gatewayAnswer(500, 'Internal Server Error'));
        log(500);
      },
    );
  };
}
