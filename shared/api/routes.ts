/**
 * Every route the service serves, and the handler module behind it. The CDK stack deploys
 * one function per entry and the local stage runs the same modules, so both serve the same
 * table. A request that matches none goes to the fallback (API Gateway's `$default` route).
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface ApiRoute {
  readonly method: HttpMethod;
  /** The API Gateway route path; `{name}` is one path segment. */
  readonly path: string;
  /** Stable id of the function: construct id on AWS, the name in local logs. */
  readonly functionId: string;
  /** The handler module, relative to the repository root; it exports `handler`. */
  readonly entry: string;
  /** `jwt`: behind the JWT authorizer. `none`: public. */
  readonly auth: 'jwt' | 'none';
}

export const API_ROUTES: readonly ApiRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/user/me/file',
    functionId: 'ListUserFiles',
    entry: 'functions/list-user-files/handler.ts',
    auth: 'jwt',
  },
];

/** What API Gateway invokes when no route matches: FastAPI's 404, 405 and slash redirect. */
export const FALLBACK_ROUTE = {
  functionId: 'RouteNotFound',
  entry: 'functions/route-not-found/handler.ts',
} as const;
