import { SEAL_PERIOD_MINUTES } from '#shared/access-trail/seal-access-trail.ts';
import { defineFunction } from '#shared/functions/function-declaration.ts';

/**
 * Seals the access trail every few minutes (`AccessTrailSealer`, an EventBridge schedule):
 * the entries filed since the last digest into the next one. A run that fails is made good by
 * the next, which seals from the same last digest; its errors alarm as any function's.
 */
export const sealAccessTrailFunction = defineFunction({
  id: 'SealAccessTrail',
  entry: 'functions/seal-access-trail/handler.ts',
  description: `Seals the access trail's new entries into a locked digest, every ${String(SEAL_PERIOD_MINUTES)} minutes`,
  // The first run reads every day of the retention: 16 queries a day, a day's at once.
  sizing: { memoryMb: 512, timeoutSeconds: 120 },
  trail: [
    {
      items: ['Query'],
      index: 'ByTime',
      why: "a window's entries, from each of a day's 16 shards",
    },
  ],
  trailDigests: 'seal',
  // The first digest starts a retention ago: no entry older is kept.
  settings: ['ACCESS_TRAIL_RETENTION_DAYS'],
});
