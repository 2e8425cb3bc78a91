import { CheckFailed, type SmokeRun } from './smoke-run.ts';

/** The stage answers in public (its OpenAPI document) and its authorizer guards the rest. */
export async function frontDoor(run: SmokeRun): Promise<void> {
  await run.step('GET /openapi.json', async () => {
    const response = await run.call('/openapi.json');
    await run.expectStatus(response, 200, 'openapi.json');
    const document = (await response.json().catch(() => undefined)) as
      { openapi?: unknown; paths?: Record<string, unknown> } | undefined;
    if (typeof document?.openapi !== 'string' || document.paths === undefined) {
      throw new CheckFailed('openapi.json: not an OpenAPI document');
    }
    return `OpenAPI ${document.openapi}, ${String(Object.keys(document.paths).length)} paths`;
  });

  await run.step('no token: 401', async () => {
    const response = await run.call('/api/v1/user/me/file');
    await run.expectStatus(response, 401, 'a request without a token');
    const body = await response.text();
    if (body !== '{"message":"Unauthorized"}') {
      throw new CheckFailed(
        `a request without a token: 401 ${body.slice(0, 200)}, not the authorizer's`,
      );
    }
    return "the authorizer's answer";
  });
}
