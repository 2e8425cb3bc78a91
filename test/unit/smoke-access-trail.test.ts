/**
 * The smoke check's judgement of the digest bucket's lock, with S3's answers to
 * GetObjectLockConfiguration as data: only a deployed stage has a lock to read.
 */
import { describe, expect, it } from 'vitest';
import { judgeDigestLock } from '#infra/smoke/smoke-access-trail.ts';

const locked = (
  Mode: 'COMPLIANCE' | 'GOVERNANCE',
  retention: { Days?: number; Years?: number },
) => ({
  ObjectLockConfiguration: {
    ObjectLockEnabled: 'Enabled' as const,
    Rule: { DefaultRetention: { Mode, ...retention } },
  },
});

describe("the smoke check's digest-lock step", () => {
  it('passes a compliance lock of the stage’s retention', () => {
    expect(judgeDigestLock(locked('COMPLIANCE', { Days: 400 }), 400)).toBe(
      'Enabled, COMPLIANCE, 400 days',
    );
  });

  it('fails any other, naming what it found', () => {
    const cases = [
      [locked('GOVERNANCE', { Days: 400 }), 'Enabled, GOVERNANCE 400 days'],
      [locked('COMPLIANCE', { Days: 30 }), 'Enabled, COMPLIANCE 30 days'],
      [locked('COMPLIANCE', { Years: 1 }), 'Enabled, COMPLIANCE 1 years'],
      [
        { ObjectLockConfiguration: { ObjectLockEnabled: 'Enabled' as const } },
        'Enabled, undefined undefined days',
      ],
      [{}, 'undefined, undefined undefined days'],
    ] as const;
    for (const [answer, found] of cases) {
      expect(() => judgeDigestLock(answer, 400)).toThrow(
        `the digest bucket's Object Lock is ${found}, not Enabled, COMPLIANCE 400 days (accessTrailRetentionDays)`,
      );
    }
  });
});
