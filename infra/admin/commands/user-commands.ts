/** The operator's commands on a user: `user …`. */
import * as z from 'zod';
import { isOutcome } from '#shared/domain/outcome.ts';
import { eraseUser } from '#shared/removal/erase-user.ts';
import { idFlag, secondsFlag, switchFlag } from '../cli-flags.ts';
import { defineCommand } from '../operator-command.ts';

/**
 * How long an erasure waits for the user's requests under way to end before its last look:
 * longer than the longest function that writes their items may run (the finalizer's 30 s).
 */
const ERASE_SETTLE_SECONDS = 40;

export const userEraseCommand = defineCommand({
  name: 'user erase',
  usage: 'user erase --user <id> [--dry-run] [--settle-seconds <seconds>]',
  summary: "Remove everything of a user's: files, uploads, notifications, memberships.",
  help: {
    flags: [
      ['--user <id>', 'the user id of their tokens'],
      ['--dry-run', 'print what would be removed, and remove nothing'],
      [
        '--settle-seconds <seconds>',
        `wait this long for their requests under way to end before the last look (default ${String(ERASE_SETTLE_SECONDS)})`,
      ],
    ],
    note:
      'Marks the user erased, so their id takes no new files, uploads or notifications; then ' +
      'removes their files and every stored version of their bytes, pending uploads, ' +
      'notifications, idempotency records and group memberships, for good, each membership with ' +
      "its member.remove entry in the group's access trail. Deal files they added stay: they " +
      "belong to their deals, as the access trail's entries do. Running it again is harmless.",
  },
  schema: z.object({
    user: idFlag('user'),
    'dry-run': switchFlag(),
    'settle-seconds': secondsFlag('settle-seconds'),
  }),
  run: async (ports, input) => {
    const erased = await eraseUser(ports, input.user, {
      dryRun: input['dry-run'],
      settleMs: (input['settle-seconds'] ?? ERASE_SETTLE_SECONDS) * 1000,
    }).catch((error: unknown) => {
      // The user is marked erased first: a refusal after that (a membership's entry that
      // could not be written) did change something, and running it again finishes.
      if (input['dry-run'] || !isOutcome(error)) throw error;
      throw new Error(
        `${error.message}; the user is marked erased and the erasure stopped there: run it again`,
        { cause: error },
      );
    });
    return {
      user_id: erased.userId,
      dry_run: erased.dryRun,
      files: erased.files,
      pending_uploads: erased.pendingUploads,
      notifications: erased.notifications,
      idempotency_records: erased.idempotencyRecords,
      other_items: erased.otherItems,
      object_versions: erased.objectVersions,
      memberships: erased.memberships.map(({ groupId, role }) => ({ group_id: groupId, role })),
    };
  },
});
