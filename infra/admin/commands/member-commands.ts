/** The operator's commands on a group's members: `member …`. */
import * as z from 'zod';
import { addMember, removeMember } from '#shared/groups/manage-groups.ts';
import { idFlag, roleFlag } from '../cli-flags.ts';
import { defineCommand } from '../operator-command.ts';

export const memberAddCommand = defineCommand({
  name: 'member add',
  usage: 'member add --group <id> --user <id> --role viewer|editor',
  summary: 'Make a user a viewer or an editor of a group, or change their role.',
  help: {
    flags: [
      ['--group <id>', 'an existing group'],
      ['--user <id>', 'the user id of their tokens'],
      ['--role', "viewer (may read the group's deal files) or editor (may also change them)"],
    ],
    note: 'For a member already, the role changes and the output shows previous_role.',
  },
  schema: z.object({ group: idFlag('group'), user: idFlag('user'), role: roleFlag }),
  run: async ({ groups }, input) => {
    const member = await addMember(
      { groups },
      { groupId: input.group, userId: input.user, role: input.role },
    );
    return {
      group_id: member.groupId,
      user_id: member.userId,
      role: member.role,
      previous_role: member.previousRole,
    };
  },
});

export const memberRemoveCommand = defineCommand({
  name: 'member remove',
  usage: 'member remove --group <id> --user <id>',
  summary: 'Take a user out of a group.',
  help: {
    flags: [
      ['--group <id>', 'the group'],
      ['--user <id>', 'a member of it; refused when they are not one'],
    ],
  },
  schema: z.object({ group: idFlag('group'), user: idFlag('user') }),
  run: async ({ groups }, input) => {
    const removed = await removeMember({ groups }, input.group, input.user);
    return {
      group_id: removed.groupId,
      user_id: removed.userId,
      role: removed.role,
      removed: true,
    };
  },
});
