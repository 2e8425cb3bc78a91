/**
 * Issue 53's figure: 100 collision races on a direct upload
 * (`test/support/direct-upload-races.ts`); `npm test` runs a few
 * (test/integration/direct-upload-races.test.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { expectCollisionsRecordedRight, raceGround } from '#test/support/direct-upload-races.ts';

const ground = raceGround('upload-races');

beforeAll(async () => {
  await ground.setUp();
});

describe('a direct upload raced, at length', () => {
  it('by bytes of the same MD5 while it completes, 100 times: what is stored, or nothing', async () => {
    const ends = await expectCollisionsRecordedRight(ground, 100, 1000);
    expect(ends).toHaveLength(100);
    expect(ends).toContain('the first recorded');
    expect(ends).toContain('refused');
  });
});
