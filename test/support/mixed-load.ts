import autocannon from 'autocannon';
import { uploadForm } from './multipart.ts';
import { waitLimit } from './wait-limit.ts';

/** The routes the load mixes: a listing, a realtime token, a small upload. */
export type LoadRoute = 'list' | 'token' | 'upload';

export interface LoadRun {
  readonly result: autocannon.Result;
  /** The id each 201 upload answered with, in order. */
  readonly uploadedIds: readonly number[];
  /** Statuses seen, by route. */
  readonly statuses: Readonly<Record<LoadRoute, Readonly<Record<number, number>>>>;
}

/** One request of each route, authorized as the connection's own user. */
function requestsFor(
  routes: readonly LoadRoute[],
  tokenOf: (connection: number) => string,
  onAnswer: (route: LoadRoute, status: number, body: string) => void,
): autocannon.Request[] {
  const form = uploadForm('a small file, under load', { name: 'load.txt', type: 'other' });
  const json = { 'content-type': 'application/json' };
  const shapes: Record<LoadRoute, autocannon.Request> = {
    list: { method: 'GET', path: '/api/v1/user/me/file' },
    token: {
      method: 'POST',
      path: '/api/v1/auth/get-realtime-token',
      headers: json,
      body: '{"room_ids":[]}',
    },
    upload: {
      method: 'POST',
      path: '/api/v1/user/me/file',
      headers: { 'content-type': form.contentType },
      body: form.body,
    },
  };
  let connections = 0;
  return routes.map((route) => ({
    ...shapes[route],
    setupRequest: (request, context) => {
      const own = context as { connection?: number };
      own.connection ??= connections++;
      return {
        ...request,
        headers: { ...request.headers, authorization: `Bearer ${tokenOf(own.connection)}` },
      };
    },
    onResponse: (status, body) => {
      onAnswer(route, status, body);
    },
  }));
}

/**
 * `connections` clients for `seconds`, each sending the routes in turn as a user of its own.
 * autocannon counts errors, timeouts and non-2xx answers; the ids of the uploads are kept.
 */
export async function runMixedLoad(options: {
  readonly url: string;
  readonly connections: number;
  readonly seconds: number;
  readonly routes: readonly LoadRoute[];
  readonly tokenOf: (connection: number) => string;
}): Promise<LoadRun> {
  const uploadedIds: number[] = [];
  const statuses: Record<LoadRoute, Record<number, number>> = { list: {}, token: {}, upload: {} };
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.seconds,
    // A request's limit in seconds, autocannon's default of 10 scaled like every wait.
    timeout: waitLimit(10_000) / 1000,
    requests: requestsFor(options.routes, options.tokenOf, (route, status, body) => {
      statuses[route][status] = (statuses[route][status] ?? 0) + 1;
      if (route === 'upload' && status === 201)
        uploadedIds.push((JSON.parse(body) as { id: number }).id);
    }),
  });
  return { result, uploadedIds, statuses };
}
