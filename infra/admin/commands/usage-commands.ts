/** The operator's look at one user's storage against their quota: `usage`. */
import * as z from 'zod';
import { settingName, STORAGE_LIMIT_SETTINGS } from '#shared/config/environment.ts';
import { toUsageRecord } from '#shared/reconcile/reconcile-storage.ts';
import { idFlag } from '../cli-flags.ts';
import { defineCommand } from '../operator-command.ts';

export const usageCommand = defineCommand({
  name: 'usage',
  usage: 'usage --user <id>',
  summary: "A user's storage usage: files and bytes used, reserved and allowed.",
  help: {
    flags: [['--user <id>', 'the user id of their tokens']],
    note:
      'used: what their files hold; reserved: their pending direct uploads, each at its ' +
      `declared size; allowed: the stage's limit (${STORAGE_LIMIT_SETTINGS.map(settingName).join(', ')}), read ` +
      'where allowed_from says (null when the stage does not say). A user whose usage was ' +
      'never stored is counted from their items. It reads; it changes nothing.',
  },
  schema: z.object({ user: idFlag('user') }),
  run: async (ports, input) => {
    const [counted, { limits, from }] = await Promise.all([
      ports.usage.read(input.user),
      ports.limits,
    ]);
    const { files, bytes } = toUsageRecord(counted);
    return {
      user_id: input.user,
      files: { ...files, allowed: limits?.files ?? null },
      bytes: { ...bytes, allowed: limits?.bytes ?? null },
      allowed_from: from,
    };
  },
});
