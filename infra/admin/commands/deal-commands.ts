/** The operator's commands on a group's deals: `deal …`. */
import * as z from 'zod';
import { addDeal } from '#shared/groups/manage-groups.ts';
import { idFlag, nameFlag } from '../cli-flags.ts';
import { defineCommand } from '../operator-command.ts';

export const dealAddCommand = defineCommand({
  name: 'deal add',
  usage: 'deal add --group <id> --deal <id> --name <name>',
  summary: 'Create a deal in a group.',
  help: {
    flags: [
      ['--group <id>', 'an existing group'],
      ['--deal <id>', "the new deal's id within that group"],
      ['--name <name>', '1 to 255 characters'],
    ],
  },
  schema: z.object({ group: idFlag('group'), deal: idFlag('deal'), name: nameFlag() }),
  run: async ({ groups }, input) => {
    const deal = await addDeal(
      { groups },
      { groupId: input.group, id: input.deal, name: input.name },
    );
    return { group_id: deal.groupId, id: deal.id, name: deal.name, created_at: deal.createdAt };
  },
});
