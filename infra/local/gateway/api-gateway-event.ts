import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda';
import { API_ROUTES } from '#functions/service-functions.ts';
import { createRouteMatcher, type RouteMatch } from '#shared/api/route-matcher.ts';
import { routeKey, type RoutePattern } from '#shared/api/routes.ts';
import type { EventClaims } from './jwt-authorizer.ts';

/** API Gateway HTTP APIs hand these content types over as text; everything else as base64. */
const TEXT_TYPES = /^(text\/[^;]+|application\/(json|xml|javascript))(;|$)/i;

/** API Gateway's request ids look like `Mx3bXjYAoAMEJ8w=`; `randomUUID` draws from a pool. */
export const newRequestId = (): string =>
  Buffer.from(randomUUID().replaceAll('-', '').slice(0, 20), 'hex')
    .toString('base64')
    .slice(0, 14) + '=';

/** Path and query of a request target, split as API Gateway does; never throws. */
export function splitTarget(target: string | undefined): {
  rawPath: string;
  rawQueryString: string;
} {
  const raw = target ?? '/';
  const mark = raw.indexOf('?');
  return mark === -1
    ? { rawPath: raw, rawQueryString: '' }
    : { rawPath: raw.slice(0, mark), rawQueryString: raw.slice(mark + 1) };
}

/** The route key and path parameters of a match: the fallback's `$default` when none. */
export const eventRoute = (found: RouteMatch<RoutePattern>) =>
  found.kind === 'route'
    ? { routeKey: routeKey(found.route), pathParameters: found.params }
    : { routeKey: '$default' };

/** What the event takes from the HTTP request: an IncomingMessage, or one described by hand. */
type EventRequest = Pick<IncomingMessage, 'method' | 'rawHeaders' | 'httpVersion'> & {
  readonly socket: { readonly localPort?: number | undefined };
};

export interface EventInput {
  readonly request: EventRequest;
  readonly rawPath: string;
  readonly rawQueryString: string;
  readonly body: Buffer;
  readonly routeKey: string;
  readonly pathParameters?: Record<string, string>;
  readonly claims?: EventClaims;
  readonly requestId: string;
  readonly sourceIp: string;
}

/**
 * The payload format 2.0 event API Gateway's HTTP API builds: lower-cased headers with
 * repeats joined by commas, cookies apart, query repeats joined by commas, a text or base64
 * body, and the authorizer's claims.
 */
export function toApiGatewayEvent(input: EventInput): APIGatewayProxyEventV2WithJWTAuthorizer {
  const { request, body, rawPath, rawQueryString } = input;
  const searchParams = new URLSearchParams(rawQueryString);
  const headers: Record<string, string> = {};
  let cookies: string[] | undefined;
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    const name = (request.rawHeaders[i] ?? '').toLowerCase();
    const value = request.rawHeaders[i + 1] ?? '';
    if (name === 'cookie') {
      cookies = [...(cookies ?? []), ...value.split(/;\s*/).filter((c) => c !== '')];
      continue;
    }
    headers[name] = headers[name] === undefined ? value : `${headers[name]},${value}`;
  }
  // API Gateway sets these itself, whatever the client sent: how the client reached it.
  headers['x-forwarded-proto'] = 'http';
  headers['x-forwarded-port'] = String(request.socket.localPort ?? '');
  const query: Record<string, string> = {};
  for (const [name, value] of searchParams) {
    query[name] = query[name] === undefined ? value : `${query[name]},${value}`;
  }
  // Bytes that are not UTF-8 stay base64 even under a text type, so none are lost.
  const isText = TEXT_TYPES.test(headers['content-type'] ?? '') && isUtf8(body);
  const now = new Date();
  const method = (request.method ?? 'GET').toUpperCase();
  return {
    version: '2.0',
    routeKey: input.routeKey,
    rawPath,
    rawQueryString,
    ...(cookies === undefined ? {} : { cookies }),
    headers,
    ...(searchParams.size > 0 ? { queryStringParameters: query } : {}),
    ...(input.pathParameters === undefined ? {} : { pathParameters: input.pathParameters }),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: {
        jwt: { claims: input.claims ?? {}, scopes: [] },
        principalId: '',
        integrationLatency: 0,
      },
      domainName: headers.host ?? 'localhost',
      domainPrefix: (headers.host ?? 'localhost').split('.')[0] ?? 'localhost',
      http: {
        method,
        path: rawPath,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: input.sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: input.requestId,
      routeKey: input.routeKey,
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length === 0
      ? { isBase64Encoded: false }
      : isText
        ? { body: body.toString('utf8'), isBase64Encoded: false }
        : { body: body.toString('base64'), isBase64Encoded: true }),
  };
}

const matchRoute = createRouteMatcher(API_ROUTES);

/**
 * The event the gateway would build for a request described by hand (`npm run event`):
 * `host` is the `host:port` asked for; headers in the order sent, repeats kept.
 */
export function httpEvent(input: {
  readonly method: string;
  readonly target: string;
  readonly host: string;
  readonly claims?: EventClaims;
  readonly headers?: readonly (readonly [string, string])[];
  readonly body?: Buffer;
}): APIGatewayProxyEventV2WithJWTAuthorizer {
  const method = input.method.toUpperCase();
  const target = splitTarget(input.target);
  const body = input.body ?? Buffer.alloc(0);
  const named = new Set((input.headers ?? []).map(([name]) => name.toLowerCase()));
  const rawHeaders = [
    ...(named.has('host') ? [] : ['host', input.host]),
    ...(input.headers ?? []).flat(),
    ...(body.length > 0 && !named.has('content-length')
      ? ['content-length', String(body.length)]
      : []),
  ];
  const localPort = Number(input.host.split(':')[1] ?? 80);
  return toApiGatewayEvent({
    request: { method, rawHeaders, httpVersion: '1.1', socket: { localPort } },
    ...target,
    ...eventRoute(matchRoute(method, target.rawPath)),
    body,
    ...(input.claims === undefined ? {} : { claims: input.claims }),
    requestId: newRequestId(),
    sourceIp: '127.0.0.1',
  });
}
