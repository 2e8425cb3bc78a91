/**
 * Issue 53's figures: 100 collision races and 200 cancel races on a direct upload
 * (`test/support/direct-upload-races.ts`); `npm test` runs a few of each
 * (test/integration/direct-upload-races.test.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  expectCancelsRaceCompletions,
  expectCollisionsRecordedRight,
  raceGround,
} from '#test/support/direct-upload-races.ts';

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

  it("by its owner's DELETE, 200 times: deleted whole, or 409 with the file intact", async () => {
    // Each race holds one of the two documented endings; which one is the race's.
    expect(await expectCancelsRaceCompletions(ground, 200, 2000)).toHaveLength(200);
  });
});
