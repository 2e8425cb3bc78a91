/**
 * Every route the service serves, and the handler module behind it. The CDK stack deploys
 * one function per `functionId` (a function may serve several routes) and the local stage
 * runs the same modules, so both serve the same table. A request that matches none goes to the fallback (API Gateway's `$default` route).
 */
import { DIRECT_UPLOAD_OBJECT_PREFIX } from '../data/keys.ts';
import { SWAGGER_UI_FILES } from '../docs/swagger-ui-assets.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ApiRoute {
  readonly method: HttpMethod;
  /** The API Gateway route path; `{name}` is one path segment. */
  readonly path: string;
  /** Stable id of the function: construct id on AWS, the name in local logs. */
  readonly functionId: string;
  /**
   * Names this route among its function's routes when it has several: the route's construct
   * id on AWS is `<functionId><routeName>Route`, whatever the table's order.
   */
  readonly routeName?: string;
  /** The handler module, relative to the repository root; it exports `handler`. */
  readonly entry: string;
  /** `jwt`: behind the JWT authorizer. `none`: public. */
  readonly auth: 'jwt' | 'none';
  /** Why a public route is public (said in the deployed template's checks). */
  readonly publicBecause?: string;
  /**
   * Files from the repository the function reads at run time, copied into its bundle at the
   * same relative path (so `import.meta.resolve` finds them there as it does locally).
   */
  readonly bundledFiles?: readonly string[];
}

export const API_ROUTES = [
  {
    method: 'GET',
    path: '/api/v1/user/me/file',
    functionId: 'ListUserFiles',
    entry: 'functions/list-user-files/handler.ts',
    auth: 'jwt',
  },
  {
    method: 'POST',
    path: '/api/v1/user/me/file',
    functionId: 'UploadUserFile',
    entry: 'functions/upload-user-file/handler.ts',
    auth: 'jwt',
  },
  {
    method: 'POST',
    path: '/api/v1/user/me/file/upload',
    functionId: 'StartDirectUpload',
    entry: 'functions/start-direct-upload/handler.ts',
    auth: 'jwt',
  },
  {
    method: 'POST',
    path: '/api/v1/user/me/file/upload/{file_id}/complete',
    functionId: 'CompleteDirectUpload',
    entry: 'functions/complete-direct-upload/handler.ts',
    auth: 'jwt',
  },
  {
    method: 'GET',
    path: '/api/v1/user/me/file/{file_id}/download',
    functionId: 'DownloadUserFile',
    entry: 'functions/download-user-file/handler.ts',
    auth: 'jwt',
  },
  {
    method: 'PATCH',
    path: '/api/v1/user/me/file/{file_id}',
    functionId: 'UpdateUserFile',
    entry: 'functions/update-user-file/handler.ts',
    auth: 'jwt',
  },
  {
    method: 'DELETE',
    path: '/api/v1/user/me/file/{file_id}',
    functionId: 'DeleteUserFile',
    entry: 'functions/delete-user-file/handler.ts',
    auth: 'jwt',
  },
  {
    method: 'POST',
    path: '/api/v1/user/me/file/notify',
    functionId: 'NotifySubmission',
    entry: 'functions/notify-submission/handler.ts',
    auth: 'jwt',
  },
  {
    method: 'GET',
    path: '/api/v1/user/me/file/notify/{notification_id}',
    functionId: 'GetNotification',
    entry: 'functions/get-notification/handler.ts',
    auth: 'jwt',
  },
  {
    method: 'GET',
    path: '/api/v1/group/{group_id}/deal/{deal_id}/file',
    functionId: 'ListDealFiles',
    entry: 'functions/list-deal-files/handler.ts',
    auth: 'jwt',
  },
  {
    method: 'PUT',
    path: '/api/v1/group/{group_id}/deal/{deal_id}/file/{file_id}',
    functionId: 'UpdateDealFile',
    entry: 'functions/update-deal-file/handler.ts',
    auth: 'jwt',
  },
  {
    method: 'DELETE',
    path: '/api/v1/group/{group_id}/deal/{deal_id}/file/{file_id}',
    functionId: 'DeleteDealFile',
    entry: 'functions/delete-deal-file/handler.ts',
    auth: 'jwt',
  },
  {
    method: 'POST',
    path: '/api/v1/auth/get-realtime-token',
    functionId: 'GetRealtimeToken',
    entry: 'functions/get-realtime-token/handler.ts',
    auth: 'jwt',
  },
  {
    method: 'GET',
    path: '/api/v1/auth/realtime-jwks.json',
    functionId: 'RealtimeJwks',
    entry: 'functions/realtime-jwks/handler.ts',
    auth: 'none',
    publicBecause: 'realtime servers fetch the public verification keys without a user token',
  },
  {
    method: 'GET',
    path: '/openapi.json',
    functionId: 'OpenApiDocument',
    entry: 'functions/openapi-document/handler.ts',
    auth: 'none',
    publicBecause: 'the API description (FastAPI serves it without auth); it holds no data',
  },
  {
    method: 'GET',
    path: '/docs',
    functionId: 'ApiDocs',
    entry: 'functions/api-docs/handler.ts',
    auth: 'none',
    publicBecause: 'the interactive reference page (FastAPI serves it without auth); no data',
    bundledFiles: SWAGGER_UI_FILES,
  },
  {
    method: 'GET',
    path: '/docs/{asset}',
    functionId: 'ApiDocs',
    routeName: 'Asset',
    entry: 'functions/api-docs/handler.ts',
    auth: 'none',
    publicBecause: "the reference page's scripts and styles; no data",
    bundledFiles: SWAGGER_UI_FILES,
  },
] as const satisfies readonly ApiRoute[];

/** `GET /api/v1/user/me/file`: one route, as API Gateway names its route keys. */
type RouteKeyOf<R> = R extends {
  readonly method: infer M extends string;
  readonly path: infer P extends string;
}
  ? `${M} ${P}`
  : never;
export type RouteKey = RouteKeyOf<(typeof API_ROUTES)[number]>;

export const routeKey = (route: Pick<ApiRoute, 'method' | 'path'>): string =>
  `${route.method} ${route.path}`;

/** What API Gateway invokes when no route matches: FastAPI's 404, 405 and slash redirect. */
export const FALLBACK_ROUTE = {
  functionId: 'RouteNotFound',
  entry: 'functions/route-not-found/handler.ts',
} as const;

/** Functions that no route invokes: S3, SQS and CloudFormation call them. */
export const EVENT_FUNCTIONS = {
  finalizeDirectUpload: {
    functionId: 'FinalizeDirectUpload',
    entry: 'functions/finalize-direct-upload/handler.ts',
    /** The object-created events it takes: signed upload forms write under this prefix. */
    objectPrefix: DIRECT_UPLOAD_OBJECT_PREFIX,
  },
  /** Posts each queued submission notification to the chat channel. */
  deliverNotification: {
    functionId: 'DeliverNotification',
    entry: 'functions/deliver-notification/handler.ts',
  },
  /** Fills the realtime key secret at deploy time (a CloudFormation custom resource). */
  initRealtimeKeys: {
    functionId: 'InitRealtimeKeys',
    entry: 'functions/init-realtime-keys/handler.ts',
  },
} as const;

/** Every function the service deploys: the route table's, the fallback and the event ones. */
export type FunctionId =
  | (typeof API_ROUTES)[number]['functionId']
  | typeof FALLBACK_ROUTE.functionId
  | (typeof EVENT_FUNCTIONS)[keyof typeof EVENT_FUNCTIONS]['functionId'];

/** Each function's handler module: what the stack bundles and the local stage imports. */
export const FUNCTION_ENTRIES: ReadonlyMap<FunctionId, string> = new Map<FunctionId, string>([
  ...API_ROUTES.map((route) => [route.functionId, route.entry] as const),
  [FALLBACK_ROUTE.functionId, FALLBACK_ROUTE.entry],
  ...Object.values(EVENT_FUNCTIONS).map((fn) => [fn.functionId, fn.entry] as const),
]);
