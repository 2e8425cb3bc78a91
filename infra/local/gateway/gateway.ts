import type { RequestListener, ServerResponse } from 'node:http';
import { FALLBACK_FUNCTION } from '#functions/service-functions.ts';
import { createRouteMatcher } from '#shared/api/route-matcher.ts';
import type { ApiRoute } from '#shared/api/routes.ts';
import { HttpError } from '#shared/http/http-errors.ts';
import type { ApiResult } from '#shared/http/responses.ts';
import { newRequestId, splitTarget, toApiGatewayEvent } from './api-gateway-event.ts';
import { createHandlerLoader, type LocalWiring } from '../lambda/handler-loader.ts';
import type { EventClaims } from './jwt-authorizer.ts';
import {
  InvocationTimedOut,
  localLambdaContext,
  timedOutMessage,
  withinTimeout,
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
import { apiCorsHeaders, withoutIntegrationCors } from './api-gateway-cors.ts';
import { type LocalFunction, STACK_FUNCTIONS } from '../lambda/stack-functions.ts';

export interface GatewayOptions {
  readonly routes: readonly ApiRoute[];
  /** The repository root that route entries are relative to. */
  readonly root: string;
  /** The local stage's adapters and settings, which each handler module is built on. */
  readonly wiring: LocalWiring;
  readonly authorize: (authorization: string | undefined) => Promise<EventClaims>;
  /** Each function's timeout and memory, by function id; the stack's (its declaration's) by default. */
  readonly functions?: ReadonlyMap<string, LocalFunction>;
  /** API Gateway's integration timeout: 30 s. */
  readonly integrationTimeoutMs?: number;
  /** How much of an over-size body is read before the 413 (request-body.ts). */
  readonly drain?: DrainLimits;
  readonly onRequest?: (line: RequestLogLine) => void;
  /** Sees every response as it goes out, body and all (the tests' contract check). */
  readonly onResponse?: (response: SentResponse) => void;
  /** The HTTP API's CORS configuration; none, as on a stage without allowed origins, by default. */
  readonly cors?: CorsRule;
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

/** API Gateway stopped waiting for the function: its integration timeout passed. */
class IntegrationTimedOut extends Error {}

function send(
  response: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: Buffer | string,
): void {
  response.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

/**
 * An answer with API Gateway's CORS headers in place of any the integration sent; a `Vary`
 * of the integration's own keeps its names beside `origin`.
 */
function withCors(
  headers: Record<string, string>,
  cors: Record<string, string>,
): Record<string, string> {
  const kept = withoutIntegrationCors(headers);
  const vary = [kept.vary, cors.vary].filter((value) => value !== undefined).join(', ');
  return { ...kept, ...cors, ...(vary === '' ? {} : { vary }) };
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
  const functions = options.functions ?? STACK_FUNCTIONS;
  const integrationTimeoutMs = options.integrationTimeoutMs ?? API_GATEWAY_INTEGRATION_TIMEOUT_MS;
  const drain = options.drain ?? OVERSIZE_DRAIN;
  const load = createHandlerLoader(options.root, options.wiring);

  /**
   * One call of a route's function, as API Gateway makes it: the function is stopped at its
   * own timeout (InvocationTimedOut), and API Gateway stops waiting at its integration timeout
   * (IntegrationTimedOut), which runs from before the module loads, as a cold start counts
   * against it. Whichever comes first answers. Nothing here can stop the handler itself, so
   * what it does after is said on the console, and its answer is never sent.
   */
  const invoke = async (
    functionId: string,
    entry: string,
    event: unknown,
    requestId: string,
  ): Promise<unknown> => {
    const fn = functions.get(functionId);
    // A function the table does not size runs as long as API Gateway waits.
    const timeoutMs = fn === undefined ? integrationTimeoutMs : fn.timeoutSeconds * 1000;
    const say = (what: string) => {
      console.error(`[${functionId}] ${what} (request ${requestId})`);
    };
    const late = (after: string) => (outcome: PromiseSettledResult<unknown>) => {
      if (outcome.status === 'fulfilled') say(`answered after ${after}; the answer is dropped`);
      else if (outcome.reason instanceof InvocationTimedOut) say(timedOutMessage(timeoutMs / 1000));
      else say(`failed after ${after}: ${String(outcome.reason)}`);
    };
    let timer: NodeJS.Timeout | undefined;
    const integration = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(new IntegrationTimedOut());
      }, integrationTimeoutMs);
    });
    const running = (async () => {
      const handler = await load(entry);
      const context = localLambdaContext(functionId, timeoutMs, fn?.memoryMb);
      return withinTimeout(handler(event, context), timeoutMs, late('its timeout'));
    })();
    try {
      return await Promise.race([running, integration]);
    } catch (error) {
      if (error instanceof IntegrationTimedOut) {
        const report = late("API Gateway's timeout");
        void running.then(
          (value: unknown) => {
            report({ status: 'fulfilled', value });
          },
          (reason: unknown) => {
            report({ status: 'rejected', reason });
          },
        );
      }
      if (error instanceof InvocationTimedOut) say(timedOutMessage(timeoutMs / 1000));
      throw error;
    } finally {
      clearTimeout(timer);
    }
  };

  return (request, response) => {
    const started = performance.now();
    const requestId = newRequestId();
    const method = (request.method ?? 'GET').toUpperCase();
    const { rawPath: path, rawQueryString } = splitTarget(request.url);
    let functionId: string = FALLBACK_FUNCTION.id;
    const cors =
      options.cors === undefined
        ? undefined
        : apiCorsHeaders(options.cors, { method, headers: request.headers });
    const reply: Reply = (status, given, body) => {
      const headers = cors === undefined ? given : withCors(given, cors);
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
      functionId = route?.functionId ?? FALLBACK_FUNCTION.id;
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
      {
        const read = await readRequestBody(request, drain);
        // nginx's 499: logged, never sent, as the connection is gone.
        if (read.kind === 'aborted') return 499;
        if (read.kind === 'too-large') {
          if (!read.drained) {
            // The client may see a broken pipe rather than the 413: this says why.
            console.warn(
              `[gateway] ${method} ${path}: a body too large or too slow to read to its end; 413, connection closed`,
            );
          }
          return platformRefusal(read.refusal);
        }
        // The raw bytes live only until they are encoded into the event.
        event = toApiGatewayEvent({ ...eventBase(route, found, claims), body: read.body });
      }
      // Lambda refuses an event over its request limit: the function never runs.
      const tooLarge = refuseEvent(eventBytes(event));
      if (tooLarge !== undefined) return platformRefusal(tooLarge);
      try {
        const entry = route?.entry ?? FALLBACK_FUNCTION.entry;
        const result = await invoke(functionId, entry, event, requestId);
        // The function ran, but Lambda hands back an error instead of a result over its limit.
        const unsent = refuseResult(resultBytes(result));
        if (unsent !== undefined) {
          console.error(`[${functionId}] response over Lambda's payload limit`);
          return platformRefusal(unsent);
        }
        return writeResult(reply, response, result, requestId);
      } catch (error) {
        if (error instanceof InvocationTimedOut) return platformRefusal(FUNCTION_TIMED_OUT);
        if (error instanceof IntegrationTimedOut) return platformRefusal(INTEGRATION_TIMED_OUT);
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
