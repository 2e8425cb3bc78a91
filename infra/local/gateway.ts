import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { createRouteMatcher } from '#shared/api/route-matcher.ts';
import { type ApiRoute, FALLBACK_ROUTE } from '#shared/api/routes.ts';
import { HttpError } from '#shared/http/http-errors.ts';
import type { ApiResult } from '#shared/http/responses.ts';
import { newRequestId, splitTarget, toApiGatewayEvent } from './api-gateway-event.ts';
import { createHandlerLoader, type LocalWiring } from './handler-loader.ts';
import type { EventClaims } from './jwt-authorizer.ts';
import { InvocationTimedOut, localLambdaContext, withinTimeout } from './lambda-context.ts';
import {
  eventBytes,
  type PlatformRefusal,
  refuseEvent,
  refuseRequestBody,
  refuseResult,
  resultBytes,
} from './platform-limits.ts';

export interface GatewayOptions {
  readonly routes: readonly ApiRoute[];
  /** The repository root that route entries are relative to. */
  readonly root: string;
  /** The local stage's adapters and settings, which each handler module is built on. */
  readonly wiring: LocalWiring;
  readonly authorize: (authorization: string | undefined) => Promise<EventClaims>;
  /** API Gateway's integration timeout is 30 s. */
  readonly timeoutMs?: number;
  readonly onRequest?: (line: RequestLogLine) => void;
  /** Sees every response as it goes out, body and all (the tests' contract check). */
  readonly onResponse?: (response: SentResponse) => void;
}

export interface SentResponse {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  /** By lower-case name. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

type Reply = (status: number, headers: Record<string, string>, body: Buffer | string) => void;

export interface RequestLogLine {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly ms: number;
  readonly requestId: string;
  readonly functionId: string;
}

/** Over API Gateway's payload limit: answered as API Gateway answers it. */
class BodyTooLarge extends Error {
  readonly refusal: PlatformRefusal;
  constructor(refusal: PlatformRefusal) {
    super(refusal.body.message);
    this.refusal = refusal;
  }
}

/** The client went away before its body was complete: nothing to answer, nothing to run. */
class ClientAborted extends Error {}

/**
 * The whole body, refused past API Gateway's payload limit: on a declared length before a
 * byte is read, otherwise as soon as the bytes read pass it. A declared length is read
 * straight into one buffer of that size, so the body is held once, not twice.
 */
async function readBody(request: IncomingMessage): Promise<Buffer> {
  try {
    return await readWholeBody(request);
  } catch (error) {
    if (error instanceof BodyTooLarge) throw error;
    throw new ClientAborted('The client aborted the request', { cause: error });
  }
}

async function readWholeBody(request: IncomingMessage): Promise<Buffer> {
  const refuse = (bytes: number) => {
    const refusal = refuseRequestBody(bytes);
    if (refusal !== undefined) throw new BodyTooLarge(refusal);
  };
  const declared = Number(request.headers['content-length'] ?? Number.NaN);
  if (Number.isSafeInteger(declared)) refuse(declared);
  if (Number.isSafeInteger(declared) && declared >= 0) {
    // Node's parser ends the body at the declared length, so it fits exactly.
    const body = Buffer.allocUnsafe(declared);
    let size = 0;
    for await (const chunk of request as AsyncIterable<Buffer>) {
      chunk.copy(body, size);
      size += chunk.length;
    }
    if (!request.complete) throw new Error('The body ended early');
    return body.subarray(0, size);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    refuse(size);
    chunks.push(chunk);
  }
  if (!request.complete) throw new Error('The body ended early');
  return Buffer.concat(chunks, size);
}

function send(
  response: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: Buffer | string,
): void {
  response.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

/** What API Gateway sends for a function result: the structured form, or an inferred 200. */
function writeResult(
  reply: Reply,
  response: ServerResponse,
  result: unknown,
  requestId: string,
): number {
  const base = { 'apigw-requestid': requestId };
  if (typeof result === 'object' && result !== null && 'statusCode' in result) {
    const structured = result as ApiResult;
    const headers: Record<string, string> = { ...base };
    for (const [name, value] of Object.entries(structured.headers ?? {})) {
      headers[name.toLowerCase()] = String(value);
    }
    if (structured.cookies !== undefined) response.setHeader('set-cookie', structured.cookies);
    const body = Buffer.from(structured.body ?? '', structured.isBase64Encoded ? 'base64' : 'utf8');
    const status = structured.statusCode ?? 200;
    reply(status, headers, body);
    return status;
  }
  const body = typeof result === 'string' ? result : JSON.stringify(result ?? null);
  reply(200, { ...base, 'content-type': 'application/json' }, body);
  return 200;
}

/**
 * The local stand-in for API Gateway's HTTP API: route match, the JWT authorizer on protected
 * routes, the payload 2.0 event, and the very handler module the CDK stack deploys for the
 * route. Unmatched requests go to the fallback function, as they do to `$default` on AWS.
 */
export function createGateway(options: GatewayOptions): RequestListener {
  const match = createRouteMatcher(options.routes);
  const timeoutMs = options.timeoutMs ?? 30_000;
  const load = createHandlerLoader(options.root, options.wiring);

  const invoke = async (functionId: string, entry: string, event: unknown): Promise<unknown> => {
    const handler = await load(entry);
    return withinTimeout(handler(event, localLambdaContext(functionId, timeoutMs)), timeoutMs);
  };

  return (request, response) => {
    const started = performance.now();
    const requestId = newRequestId();
    const method = (request.method ?? 'GET').toUpperCase();
    const { rawPath: path, rawQueryString } = splitTarget(request.url);
    let functionId: string = FALLBACK_ROUTE.functionId;
    const reply: Reply = (status, headers, body) => {
      send(response, status, headers, body);
      options.onResponse?.({ method, path, status, headers, body: Buffer.from(body) });
    };
    const log = (status: number) =>
      options.onRequest?.({
        method,
        path,
        status,
        ms: Math.round(performance.now() - started),
        requestId,
        functionId,
      });

    const eventBase = (
      route: ApiRoute | undefined,
      found: ReturnType<typeof match>,
      claims: EventClaims | undefined,
    ) => ({
      request,
      rawPath: path,
      rawQueryString,
      routeKey: route === undefined ? '$default' : `${route.method} ${route.path}`,
      ...(found.kind === 'route' ? { pathParameters: found.params } : {}),
      ...(claims === undefined ? {} : { claims }),
      requestId,
      sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
    });

    /** The event without its body, which the handler reads from the socket as it arrives. */
    const handle = async (): Promise<number> => {
      const found = match(method, path);
      const route = found.kind === 'route' ? found.route : undefined;
      functionId = route?.functionId ?? FALLBACK_ROUTE.functionId;
      const gatewayError = (status: number, message: string, headers = {}) => {
        reply(
          status,
          { 'content-type': 'application/json', 'apigw-requestid': requestId, ...headers },
          JSON.stringify({ message }),
        );
        return status;
      };
      const platformRefusal = ({ status, body, headers }: PlatformRefusal) =>
        gatewayError(status, body.message, headers);

      let claims: EventClaims | undefined;
      if (route?.auth === 'jwt') {
        try {
          claims = await options.authorize(request.headers.authorization);
        } catch (error) {
          if (!(error instanceof HttpError)) throw error;
          request.resume();
          return gatewayError(error.statusCode, 'Unauthorized', error.headers);
        }
      }
      let event;
      try {
        // The raw bytes live only until they are encoded into the event.
        event = toApiGatewayEvent({
          ...eventBase(route, found, claims),
          body: await readBody(request),
        });
      } catch (error) {
        // nginx's 499: logged, never sent, as the connection is gone.
        if (error instanceof ClientAborted) return 499;
        if (!(error instanceof BodyTooLarge)) throw error;
        return platformRefusal(error.refusal);
      }
      // Lambda refuses an event over its request limit: the function never runs.
      const tooLarge = refuseEvent(eventBytes(event));
      if (tooLarge !== undefined) return platformRefusal(tooLarge);
      try {
        const result = await invoke(functionId, route?.entry ?? FALLBACK_ROUTE.entry, event);
        // The function ran, but Lambda hands back an error instead of a result over its limit.
        const unsent = refuseResult(resultBytes(result));
        if (unsent !== undefined) {
          console.error(`[${functionId}] response over Lambda's payload limit`);
          return platformRefusal(unsent);
        }
        return writeResult(reply, response, result, requestId);
      } catch (error) {
        if (error instanceof InvocationTimedOut) return gatewayError(503, 'Service Unavailable');
        // A function that throws is a 500 from API Gateway, with nothing of the error.
        console.error(`[${functionId}] invocation failed:`, error);
        return gatewayError(500, 'Internal Server Error');
      }
    };

    handle().then(log, (error: unknown) => {
      console.error('[gateway] request failed:', error);
      if (!response.headersSent) {
        reply(500, { 'content-type': 'application/json' }, '{"message":"Internal Server Error"}');
      } else response.destroy();
      log(500);
    });
  };
}
