/**
 * A direct upload raced by its own form and by its owner's DELETE, a few times each
 * (`test/support/direct-upload-races.ts`; the hardening suite runs 100 and 200).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  COLLIDING_FILES,
  expectCancelsRaceCompletions,
  expectCollisionsRecordedRight,
  hashOf,
  raceGround,
} from '#test/support/direct-upload-races.ts';

const ground = raceGround('upload-races');

beforeAll(async () => {
  await ground.setUp();
});

describe('a direct upload raced', () => {
  it('has two colliding files: one size and MD5, two SHA-256s', () => {
    const [first, second] = COLLIDING_FILES;
    expect(first.length).toBe(second.length);
    expect(first.equals(second)).toBe(false);
    expect(hashOf('md5', first)).toBe(hashOf('md5', second));
    expect(hashOf('sha256', first)).not.toBe(hashOf('sha256', second));
  });

  it('by bytes of the same MD5 while it completes: records what is stored, or nothing', async () => {
    const ends = await expectCollisionsRecordedRight(ground, 4, 100);
    // After the copy, the first stays recorded; after the HEAD or the digest, it is refused.
    expect(ends).toContain('the first recorded');
    expect(ends).toContain('refused');
  });

  it("by its owner's DELETE: deleted whole, or 409 with the completion's file intact", async () => {
    const answers = await expectCancelsRaceCompletions(ground, 4, 200);
    expect(answers).toHaveLength(4);
  });
});
