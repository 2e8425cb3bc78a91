/**
 * Timeouts as deployed: each function stops at its own timeout (its declaration's), not at API
 * Gateway's 30 s. The slow function is a real one, the stage's own, waiting on a DynamoDB
 * that stops answering. Every route's handler is a middy stack, and middy answers for it 5 ms
 * before Lambda would stop it (`timeoutEarlyInMillis`, https://middy.js.org/docs/writing-middlewares/timeouts/):
 * a TimeoutError, which our error middleware makes a 500. That is the answer deployed too.
 * What API Gateway answers when a function gives no answer at all is
 * test/unit/gateway-timeouts.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { API_ROUTES } from '#functions/service-functions.ts';
import {
  API_GATEWAY_INTEGRATION_TIMEOUT_MS,
  INTEGRATION_TIMED_OUT,
} from '#infra/local/gateway/platform-limits.ts';
import { STACK_FUNCTIONS, stackFunction } from '#infra/local/lambda/stack-functions.ts';
import { expectRefused } from '#test/support/expect-refused.ts';
import { type HoldingProxy, startHoldingProxy } from '#test/support/holding-proxy.ts';
import { waitLimit } from '#test/support/wait-limit.ts';
import { useTestStage } from '#test/support/test-stage.ts';

/** middy's reserve before Lambda's timeout, in which it answers for the handler. */
const MIDDY_EARLY_MS = 5;

let dynamodb: HoldingProxy | undefined;
const proxy = () => {
  if (dynamodb === undefined) throw new Error('The proxy starts with the stage');
  return dynamodb;
};
const stage = useTestStage(() => ({
  handlerEndpoints: async (real) => {
    dynamodb = await startHoldingProxy(real.dynamodb);
    return { dynamodb: dynamodb.url, s3: real.s3 };
  },
}));
afterEach(() => {
  proxy().release();
  vi.restoreAllMocks();
});
afterAll(async () => {
  await dynamodb?.close();
});

describe('a function that runs past its timeout', () => {
  it(
    'answers at its own timeout, not at API Gateway’s 30 s, with a 500',
    async () => {
      const { timeoutSeconds } = stackFunction('GetNotification');
      expect(timeoutSeconds * 1000).toBeLessThan(API_GATEWAY_INTEGRATION_TIMEOUT_MS);
      // Warm: the module loads outside the timeout, as a Lambda init does.
      const warm = await stage().request(`/api/v1/user/me/file/notify/${randomUUID()}`, { as: 7 });
      expect(warm.status).toBe(404);
      const said = vi.spyOn(console, 'error').mockImplementation(() => undefined);
      const seen = stage().finishedRequests().length;

      // DynamoDB stops answering: the function waits on its read past its 10 s.
      proxy().hold((call) => call.operation !== undefined);
      let requestId = '';
      await expectRefused(
        stage(),
        async () => {
          const response = await stage().request(`/api/v1/user/me/file/notify/${randomUUID()}`, {
            as: 7,
          });
          requestId = response.headers.get('apigw-requestid') ?? '';
          return response;
        },
        500,
        { detail: 'Internal Server Error' },
      );
      expect(proxy().held()).toBe(1);
      const line = stage().finishedRequests()[seen];
      expect(line).toMatchObject({ status: 500, functionId: 'GetNotification', requestId });
      // At its own timeout: nearer its 10 s than the 30 s it was given before.
      expect(line?.ms).toBeGreaterThanOrEqual(timeoutSeconds * 1000 - MIDDY_EARLY_MS);
      expect(line?.ms).toBeLessThan(
        (timeoutSeconds * 1000 + API_GATEWAY_INTEGRATION_TIMEOUT_MS) / 2,
      );
      // The function answered, if only just: Lambda never had to stop it.
      expect(said).not.toHaveBeenCalledWith(expect.stringContaining('Task timed out'));
    },
    waitLimit(60_000),
  );
});

describe('the timeouts, exactly', () => {
  it('are each function’s own, as its declaration deploys it', () => {
    expect(stackFunction('GetNotification')).toMatchObject({ timeoutSeconds: 10, memoryMb: 512 });
    expect(stackFunction('UploadUserFile')).toMatchObject({ timeoutSeconds: 29, memoryMb: 1024 });
    expect(stackFunction('FinalizeDirectUpload').timeoutSeconds).toBe(30);
  });

  it('let every route’s function stop before API Gateway’s 30 s, which then answers 503', () => {
    expect(API_GATEWAY_INTEGRATION_TIMEOUT_MS).toBe(30_000);
    for (const route of API_ROUTES) {
      expect(STACK_FUNCTIONS.get(route.functionId)?.timeoutSeconds, route.functionId).toBeLessThan(
        API_GATEWAY_INTEGRATION_TIMEOUT_MS / 1000,
      );
    }
    expect(INTEGRATION_TIMED_OUT).toEqual({
      status: 503,
      body: { message: 'Service Unavailable' },
      headers: {},
    });
  });
});
