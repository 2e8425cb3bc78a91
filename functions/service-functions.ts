/**
 * The one list of the service's functions. The CDK stack deploys each, the local stage runs
 * each, and everything that needs the routes, their operations, a function's variables, its
 * sizing or its grants derives them from here. A function's order here is its routes' order:
 * the route matcher tries them in it (Starlette's 405 names the first), and the OpenAPI
 * document lists them in it.
 */
import type { ApiOperation } from '#shared/api/operation.ts';
import { type DocumentedRoute, routeKey, type RouteKeyOf } from '#shared/api/routes.ts';
import type { FunctionDeclaration } from '#shared/functions/function-declaration.ts';
import { apiDocsFunction } from './api-docs/function.ts';
import { completeDirectUploadFunction } from './complete-direct-upload/function.ts';
import { deleteDealFileFunction } from './delete-deal-file/function.ts';
import { deleteUserFileFunction } from './delete-user-file/function.ts';
import { deliverNotificationFunction } from './deliver-notification/function.ts';
import { downloadDealFileFunction } from './download-deal-file/function.ts';
import { downloadUserFileFunction } from './download-user-file/function.ts';
import { finalizeDirectUploadFunction } from './finalize-direct-upload/function.ts';
import { getDealFileFunction } from './get-deal-file/function.ts';
import { getNotificationFunction } from './get-notification/function.ts';
import { getRealtimeTokenFunction } from './get-realtime-token/function.ts';
import { getUserFileFunction } from './get-user-file/function.ts';
import { getUserFileAccessFunction } from './get-user-file-access/function.ts';
import { getUserUsageFunction } from './get-user-usage/function.ts';
import { initRealtimeKeysFunction } from './init-realtime-keys/function.ts';
import { listDealAccessFunction } from './list-deal-access/function.ts';
import { listDealFilesFunction } from './list-deal-files/function.ts';
import { listUserFilesFunction } from './list-user-files/function.ts';
import { notifySubmissionFunction } from './notify-submission/function.ts';
import { openApiDocumentFunction } from './openapi-document/function.ts';
import { postAlarmFunction } from './post-alarm/function.ts';
import { realtimeJwksFunction } from './realtime-jwks/function.ts';
import { recordScanVerdictFunction } from './record-scan-verdict/function.ts';
import { routeNotFoundFunction } from './route-not-found/function.ts';
import { sealAccessTrailFunction } from './seal-access-trail/function.ts';
import { startDirectUploadFunction } from './start-direct-upload/function.ts';
import { updateDealFileFunction } from './update-deal-file/function.ts';
import { updateUserFileFunction } from './update-user-file/function.ts';
import { uploadUserFileFunction } from './upload-user-file/function.ts';

export const SERVICE_FUNCTIONS = [
  listUserFilesFunction,
  uploadUserFileFunction,
  startDirectUploadFunction,
  completeDirectUploadFunction,
  downloadUserFileFunction,
  updateUserFileFunction,
  deleteUserFileFunction,
  getUserFileFunction,
  getUserUsageFunction,
  notifySubmissionFunction,
  getNotificationFunction,
  listDealFilesFunction,
  updateDealFileFunction,
  deleteDealFileFunction,
  getDealFileFunction,
  // Its path is no other route's, so its place changes no 405; here it is documented with
  // the other deal-file routes.
  downloadDealFileFunction,
  // The trail's readers: paths no other route has, after the notify routes so that
  // `…/file/notify/access` stays the notification's.
  listDealAccessFunction,
  getUserFileAccessFunction,
  getRealtimeTokenFunction,
  realtimeJwksFunction,
  openApiDocumentFunction,
  apiDocsFunction,
  routeNotFoundFunction,
  finalizeDirectUploadFunction,
  recordScanVerdictFunction,
  deliverNotificationFunction,
  postAlarmFunction,
  initRealtimeKeysFunction,
  sealAccessTrailFunction,
] as const satisfies readonly FunctionDeclaration[];

type Declared = (typeof SERVICE_FUNCTIONS)[number];
export type FunctionId = Declared['id'];

/** What API Gateway invokes when no route matches: FastAPI's 404, 405 and slash redirect. */
export const FALLBACK_FUNCTION = routeNotFoundFunction;

/** `GET /api/v1/user/me/file` for each route: API Gateway's route keys. */
export type RouteKey = RouteKeyOf<
  Declared extends infer F
    ? F extends { readonly routes: readonly (infer R)[] }
      ? R
      : never
    : never
>;

/** Every route, with its function's id, module and files, in the list's order. */
export const API_ROUTES: readonly DocumentedRoute[] = SERVICE_FUNCTIONS.flatMap(
  (fn: FunctionDeclaration) =>
    (fn.routes ?? []).map((route) => ({
      ...route,
      functionId: fn.id,
      entry: fn.entry,
      ...(fn.bundledFiles === undefined ? {} : { bundledFiles: fn.bundledFiles }),
    })),
);

/**
 * What the bundler compiles into a function (esbuild's `define`): the fallback gets the route
 * table as methods and paths, so its bundle holds no route's operation or documentation.
 */
export const bundleConstantsOf = (fn: FunctionDeclaration): Readonly<Record<string, string>> =>
  fn.id === FALLBACK_FUNCTION.id
    ? {
        ROUTE_TABLE: JSON.stringify(
          JSON.stringify(API_ROUTES.map(({ method, path }) => ({ method, path }))),
        ),
      }
    : {};

/** Each route's operation, by route key. */
export const API_OPERATIONS = Object.fromEntries(
  API_ROUTES.map((route) => [routeKey(route), route.operation]),
) as Readonly<Record<RouteKey, ApiOperation>>;

/** Each function by id. */
export const FUNCTIONS_BY_ID: ReadonlyMap<FunctionId, FunctionDeclaration> = new Map(
  SERVICE_FUNCTIONS.map((fn) => [fn.id, fn]),
);

/** Each function's handler module: what the stack bundles and the local stage imports. */
export const FUNCTION_ENTRIES: ReadonlyMap<FunctionId, string> = new Map(
  SERVICE_FUNCTIONS.map((fn) => [fn.id, fn.entry]),
);
