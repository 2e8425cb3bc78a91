/**
 * The e2e suite's contract check: every response the tests receive from a stage (those with
 * API Gateway's `apigw-requestid`) is held against the OpenAPI document GET /openapi.json
 * serves. A response the document does not describe fails the request, and so the test.
 */
import { buildOpenApiDocument } from '#shared/openapi/openapi-document.ts';
import { type OpenApiDocument, openApiContract } from './openapi-contract.ts';

const contract = openApiContract(buildOpenApiDocument() as unknown as OpenApiDocument);
const fetchFromStage = globalThis.fetch;

export class ContractViolation extends Error {}

globalThis.fetch = async (input, init) => {
  const response = await fetchFromStage(input, init);
  if (!response.headers.has('apigw-requestid')) return response;
  const request = input instanceof Request ? input : undefined;
  const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
  const url = new URL(
    typeof input === 'string' ? input : input instanceof URL ? input.href : input.url,
  );
  const problems = contract.check({
    method,
    path: url.pathname,
    status: response.status,
    headers: response.headers,
    body: new Uint8Array(await response.clone().arrayBuffer()),
  });
  if (problems.length > 0) {
    throw new ContractViolation(`Not as the OpenAPI document says:\n${problems.join('\n')}`);
  }
  return response;
};
