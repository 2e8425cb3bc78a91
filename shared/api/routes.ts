/**
 * A route as the gateway, the route matcher and the OpenAPI document take it. The routes
 * themselves are declared by their functions (`functions/<name>/function.ts`) and listed in
 * `functions/service-functions.ts`; code here takes them as an argument.
 */
import type { ApiOperation } from './operation.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What a route matcher needs of a route. */
export interface RoutePattern {
  readonly method: HttpMethod;
  /** The API Gateway route path; `{name}` is one path segment. */
  readonly path: string;
}

export interface ApiRoute extends RoutePattern {
  /** The id of the function that serves it. */
  readonly functionId: string;
  /** Names this route among its function's routes when it has several. */
  readonly routeName?: string;
  /** The handler module, relative to the repository root; it exports `handler`. */
  readonly entry: string;
  /** `jwt`: behind the JWT authorizer. `none`: public. */
  readonly auth: 'jwt' | 'none';
  /** Why a public route is public (said in the deployed template's checks). */
  readonly publicBecause?: string;
  /** Files its function reads at run time, copied into its bundle. */
  readonly bundledFiles?: readonly string[];
}

/** A route with its operation: what the OpenAPI document is built from. */
export interface DocumentedRoute extends ApiRoute {
  readonly operation: ApiOperation;
}

/** `GET /api/v1/user/me/file`: one route, as API Gateway names its route keys. */
export type RouteKeyOf<R> = R extends {
  readonly method: infer M extends string;
  readonly path: infer P extends string;
}
  ? `${M} ${P}`
  : never;

export const routeKey = (route: RoutePattern): string => `${route.method} ${route.path}`;
