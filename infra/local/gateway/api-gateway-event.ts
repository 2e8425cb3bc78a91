import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEventV2WithJWTAuthorizer as HttpEvent } from 'aws-lambda';
import { API_ROUTES } from '#functions/service-functions.ts';
import { createRouteMatcher, type RouteMatch } from '#shared/api/route-matcher.ts';
import { routeKey, type RoutePattern } from '#shared/api/routes.ts';
import type { EventClaims } from './jwt-authorizer.ts';

/** API Gateway HTTP APIs hand these content types over as text; everything else as base64. */
const TEXT_TYPES = /^(text\/[^;]+|application\/(json|xml|javascript))(;|$)/i;

/** API Gateway's request ids look like `Mx3bXjYAoAMEJ8w=`; `randomUUID` draws from a pool. */
export const newRequestId = (): string =>
  `${Buffer.from(randomUUID().replaceAll('-', '').slice(0, 20), 'hex').toString('base64').slice(0, 14)}=`;

/** Path and query of a request target, split as API Gateway does; never throws. */
export function splitTarget(target = '/'): { rawPath: string; rawQueryString: string } {
  const [rawPath = '', rawQueryString = ''] = target.split(/\?(.*)/s);
  return { rawPath, rawQueryString };
}

/** The route key and path parameters of a match: the fallback's `$default` when none. */
export const eventRoute = (found: RouteMatch<RoutePattern>) =>
  found.kind === 'route'
    ? { routeKey: routeKey(found.route), pathParameters: found.params }
    : { routeKey: '$default' };

export interface EventInput {
  /** An IncomingMessage, or one described by hand. */
  readonly request: Pick<IncomingMessage, 'method' | 'rawHeaders' | 'httpVersion'> & {
    readonly socket: { readonly localPort?: number | undefined };
  };
  readonly rawPath: string;
  readonly rawQueryString: string;
  readonly body: Buffer;
  readonly routeKey: string;
  readonly pathParameters?: Record<string, string>;
  readonly claims?: EventClaims;
  readonly requestId: string;
  readonly sourceIp: string;
}

/** Repeats joined by commas, as API Gateway joins headers and query parameters. */
function joined(pairs: Iterable<readonly [string, string]>): Record<string, string> {
  const into: Record<string, string> = {};
  for (const [name, value] of pairs)
    into[name] = Object.hasOwn(into, name) ? `${into[name]},${value}` : value;
  return into;
}

/**
 * The payload format 2.0 event API Gateway's HTTP API builds: lower-cased headers, cookies
 * apart, repeats joined, a text or base64 body, and the authorizer's claims.
 */
export function toApiGatewayEvent(input: EventInput): HttpEvent {
  const { request, body, rawPath, rawQueryString, routeKey } = input;
  const raw = request.rawHeaders.flatMap((name, i) =>
    i % 2 === 0 ? [[name.toLowerCase(), request.rawHeaders[i + 1] ?? ''] as const] : [],
  );
  const cookies = raw.flatMap(([name, value]) => (name === 'cookie' ? value.split(/;\s*/) : []));
  const headers = joined(raw.filter(([name]) => name !== 'cookie'));
  // API Gateway sets these itself, whatever the client sent: how the client reached it.
  headers['x-forwarded-proto'] = 'http';
  headers['x-forwarded-port'] = String(request.socket.localPort ?? '');
  const searchParams = new URLSearchParams(rawQueryString);
  // Bytes that are not UTF-8 stay base64 even under a text type, so none are lost.
  const isText = TEXT_TYPES.test(headers['content-type'] ?? '') && isUtf8(body);
  const now = new Date();
  const domainName = headers.host ?? 'localhost';
  const http = {
    ...{ method: (request.method ?? 'GET').toUpperCase(), path: rawPath },
    ...{ protocol: `HTTP/${request.httpVersion}`, sourceIp: input.sourceIp },
    userAgent: headers['user-agent'] ?? '',
  };
  const authorizer = { jwt: { claims: input.claims ?? {}, scopes: [] }, principalId: '' };
  return {
    ...{ version: '2.0', routeKey, rawPath, rawQueryString },
    ...(cookies.some((c) => c !== '') ? { cookies: cookies.filter((c) => c !== '') } : {}),
    headers,
    ...(searchParams.size > 0 ? { queryStringParameters: joined(searchParams) } : {}),
    ...(input.pathParameters === undefined ? {} : { pathParameters: input.pathParameters }),
    requestContext: {
      ...{ accountId: '000000000000', apiId: 'local', http, requestId: input.requestId },
      authorizer: { ...authorizer, integrationLatency: 0 },
      ...{ domainName, domainPrefix: domainName.split('.')[0] ?? domainName },
      ...{ routeKey, stage: '$default', time: now.toISOString(), timeEpoch: now.getTime() },
    },
    ...(body.length === 0
      ? { isBase64Encoded: false }
      : { body: body.toString(isText ? 'utf8' : 'base64'), isBase64Encoded: !isText }),
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
}): HttpEvent {
  const method = input.method.toUpperCase();
  const target = splitTarget(input.target);
  const body = input.body ?? Buffer.alloc(0);
  const headers = input.headers ?? [];
  const named = new Set(headers.map(([name]) => name.toLowerCase()));
  const rawHeaders = [
    ...(named.has('host') ? [] : ['host', input.host]),
    ...headers.flat(),
    ...(body.length > 0 && !named.has('content-length')
      ? ['content-length', `${body.length}`]
      : []),
  ];
  const socket = { localPort: Number(input.host.split(':')[1] ?? 80) };
  return toApiGatewayEvent({
    ...{ request: { method, rawHeaders, httpVersion: '1.1', socket }, ...target, body },
    ...eventRoute(matchRoute(method, target.rawPath)),
    ...(input.claims === undefined ? {} : { claims: input.claims }),
    ...{ requestId: newRequestId(), sourceIp: '127.0.0.1' },
  });
}
