/** The operator's commands on groups: `group …`. */
import * as z from 'zod';
import { addGroup } from '#shared/groups/manage-groups.ts';
import { idFlag, nameFlag } from '../cli-flags.ts';
import { defineCommand } from '../operator-command.ts';

export const groupAddCommand = defineCommand({
  name: 'group add',
  usage: 'group add --group <id> --name <name>',
  summary: 'Create a group; its id is yours to choose.',
  help: {
    flags: [
      ['--group <id>', "the new group's id, a positive integer (room ids and paths carry it)"],
      ['--name <name>', '1 to 255 characters'],
    ],
    note: 'Refused when the group exists.',
  },
  schema: z.object({ group: idFlag('group'), name: nameFlag() }),
  run: async ({ groups }, input) => {
    const group = await addGroup({ groups }, { id: input.group, name: input.name });
    return { id: group.id, name: group.name, created_at: group.createdAt };
  },
});
