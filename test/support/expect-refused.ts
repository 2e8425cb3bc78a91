import { expect } from 'vitest';
import type { TestStage } from './test-stage.ts';

/** Sends a request; asserts its status, its exact JSON body, and that nothing was stored. */
export async function expectRefused(
  stage: TestStage,
  send: () => Promise<Response>,
  status: number,
  body: unknown,
): Promise<void> {
  const before = await stage.stored();
  const response = await send();
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/json');
  expect(await response.json()).toEqual(body);
  expect(await stage.stored()).toEqual(before);
}
