/** The operator's commands on the realtime signing keys: `realtime-key …`. */
import * as z from 'zod';
import { MAX_REALTIME_TOKEN_SECONDS } from '#shared/realtime/realtime-config.ts';
import { withNewKey } from '#shared/realtime/realtime-key-set.ts';
import { secondsFlag } from '../cli-flags.ts';
import { defineCommand } from '../operator-command.ts';
import { OperatorRefusal } from '../operator-refusal.ts';

export const realtimeKeyRotateCommand = defineCommand({
  name: 'realtime-key rotate',
  usage: 'realtime-key rotate [--activate-in <seconds>]',
  summary: 'Publish a new realtime signing key; it signs once its lead has passed.',
  help: {
    flags: [
      [
        '--activate-in <seconds>',
        'the lead: 0 locally, 900 on a deployed stage (at least 600 there), so every container and JWKS cache has the key before it signs',
      ],
    ],
    note: 'Keys no token can still need are removed; the previous key stays published.',
  },
  schema: z.object({
    'activate-in': secondsFlag('activate-in'),
  }),
  run: async ({ realtimeKeys: store }, input) => {
    const lead = input['activate-in'] ?? store.rotationLeadSeconds;
    if (lead < store.minimumLeadSeconds) {
      throw new OperatorRefusal(
        `--activate-in must be at least ${store.minimumLeadSeconds} on a deployed stage: containers read the keys up to 5 minutes late, and verifiers may cache the JWKS 5 minutes more`,
      );
    }
    const now = new Date();
    const rotated = await withNewKey(await store.load(), now, {
      activateInSeconds: lead,
      // Keeps every key a token of the longest allowed lifetime may still need.
      tokenSeconds: MAX_REALTIME_TOKEN_SECONDS,
    });
    await store.save(rotated);
    const added = rotated.keys.at(-1);
    return {
      kid: added?.kid,
      activates_at: added?.activatesAt,
      keys: rotated.keys.map((key) => ({ kid: key.kid, activates_at: key.activatesAt })),
    };
  },
});
