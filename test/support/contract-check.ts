/**
 * The e2e suite's contract check: every response a stage sends is held against the OpenAPI
 * document GET /openapi.json serves (see `openapi-contract.ts`).
 */
import { buildOpenApiDocument } from '#shared/openapi/openapi-document.ts';
import { requestSettingDefaults } from '#shared/config/environment.ts';
import {
  type ObservedResponse,
  type OpenApiDocument,
  openApiContract,
} from './openapi-contract.ts';
import { API_ROUTES } from '#functions/service-functions.ts';

export const serviceContract = openApiContract(
  JSON.parse(
    JSON.stringify(buildOpenApiDocument(API_ROUTES, requestSettingDefaults())),
  ) as OpenApiDocument,
);

/** For a stage in another process (`npm start`): a response the test received. */
export async function undocumented(method: string, response: Response): Promise<string[]> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  // fetch has undone the content coding already: the body below is the decoded one.
  delete headers['content-encoding'];
  const observed: ObservedResponse = {
    method,
    path: new URL(response.url).pathname,
    status: response.status,
    headers,
    body: new Uint8Array(await response.clone().arrayBuffer()),
  };
  return serviceContract.check(observed);
}
