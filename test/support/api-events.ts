import type { Context } from 'aws-lambda';
import { localLambdaContext } from '#infra/local/lambda/lambda-context.ts';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { waitLimit } from './wait-limit.ts';

/** A payload 2.0 event as API Gateway would send it, for handler-level unit tests. */
export function apiEvent(options: {
  body?: string | Buffer;
  contentType?: string;
  pathParameters?: Record<string, string>;
  queryStringParameters?: Record<string, string>;
  claims?: Record<string, string>;
  routeKey?: string;
}): ApiEvent {
  const headers: Record<string, string> =
    options.contentType === undefined ? {} : { 'content-type': options.contentType };
  const body =
    options.body === undefined
      ? {}
      : typeof options.body === 'string'
        ? { body: options.body, isBase64Encoded: false }
        : { body: options.body.toString('base64'), isBase64Encoded: true };
  return {
    version: '2.0',
    routeKey: options.routeKey ?? 'POST /test',
    rawPath: '/test',
    rawQueryString: '',
    headers,
    ...(options.pathParameters === undefined ? {} : { pathParameters: options.pathParameters }),
    ...(options.queryStringParameters === undefined
      ? {}
      : { queryStringParameters: options.queryStringParameters }),
    requestContext: {
      accountId: '000000000000',
      apiId: 'test',
      authorizer: {
        jwt: { claims: options.claims ?? { sub: '7' }, scopes: [] },
        principalId: '',
        integrationLatency: 0,
      },
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: {
        method: 'POST',
        path: '/test',
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: 'test',
      },
      requestId: 'test-request',
      routeKey: options.routeKey ?? 'POST /test',
      stage: '$default',
      time: new Date().toISOString(),
      timeEpoch: Date.now(),
    },
    isBase64Encoded: false,
    ...body,
  };
}

/** A GET of `path`, as API Gateway hands it to the route that takes it. */
export const getEvent = (path: string, pathParameters?: Record<string, string>): ApiEvent => ({
  ...apiEvent({ routeKey: `GET ${path}`, ...(pathParameters && { pathParameters }) }),
  rawPath: path,
});

/**
 * A fresh context for one invocation: its time limit starts now, as Lambda's does. Never keep
 * one: files share a worker's module graph, and a context made at import ran out 10 s later
 * for every file after it, so middy's early timeout answered 500 at once.
 */
export const lambdaContext = (): Context => localLambdaContext('test', waitLimit(10_000));

/** The parsed JSON body of a handler result. */
export function bodyOf(result: unknown): unknown {
  const { body } = result as { body?: string };
  return body === undefined || body === '' ? undefined : JSON.parse(body);
}
