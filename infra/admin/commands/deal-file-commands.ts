/** The operator's commands on a deal's files: `deal-file …`. */
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import * as z from 'zod';
import { addDealFile, type DealFileSource } from '#shared/deal-files/add-deal-file.ts';
import { toDealFileRecord } from '#shared/deal-files/api/deal-file-response.ts';
import { MAX_UPLOAD_BYTES } from '#shared/user-files/upload-limits.ts';
import { fileTypeFlag, idFlag, nameFlag } from '../cli-flags.ts';
import { defineCommand } from '../operator-command.ts';
import { OperatorRefusal } from '../operator-refusal.ts';

/** The operator's file, read whole after its size is known to be within the limit. */
async function readLocalFile(path: string): Promise<Uint8Array> {
  let size: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new OperatorRefusal(`--path ${path} is not a file`);
    size = info.size;
  } catch (error) {
    if (error instanceof OperatorRefusal) throw error;
    throw new OperatorRefusal(`cannot read --path ${path}: ${(error as Error).message}`);
  }
  if (size === 0) throw new OperatorRefusal(`--path ${path} is empty`);
  if (size > MAX_UPLOAD_BYTES) {
    throw new OperatorRefusal(
      `--path ${path} is ${size} bytes; a deal file may be at most ${MAX_UPLOAD_BYTES} bytes (50 MiB)`,
    );
  }
  return readFile(path);
}

const DealFileAddFlags = z
  .object({
    group: idFlag('group'),
    deal: idFlag('deal'),
    name: nameFlag().optional(),
    type: fileTypeFlag.optional(),
    path: z.string().optional(),
    'from-user-file': idFlag('from-user-file').optional(),
    user: idFlag('user').optional(),
  })
  .check((ctx) => {
    const { path, user } = ctx.value;
    const fromUserFile = ctx.value['from-user-file'];
    const fail = (message: string) =>
      ctx.issues.push({ code: 'custom', message, input: ctx.value });
    if ((path === undefined) === (fromUserFile === undefined)) {
      fail('give exactly one of --path <file> and --from-user-file <id> --user <id>');
    } else if (fromUserFile !== undefined && user === undefined) {
      fail('--from-user-file needs --user, the owner of the file');
    } else if (path !== undefined && user !== undefined) {
      fail('--user goes with --from-user-file, not with --path');
    }
  });

export const dealFileAddCommand = defineCommand({
  name: 'deal-file add',
  usage:
    'deal-file add --group <id> --deal <id> [--name <name>] [--type <type>] (--path <file> | --from-user-file <id> --user <id>)',
  summary: "Attach a file to a deal: a local file's bytes, or a copy of a user's upload.",
  help: {
    flags: [
      ['--group <id> --deal <id>', 'an existing deal'],
      ['--path <file>', 'a local file, 1 byte to 50 MiB'],
      ['--from-user-file <id> --user <id>', 'a file that user uploaded, copied to the deal'],
      ['--name <name>', "default: the file's own name"],
      [
        '--type <type>',
        "deck, financials, raw_data, snapshot, full, mini, nano or other; default: none, or the user file's",
      ],
    ],
    note: 'Prints the new deal file; its id comes from the service.',
  },
  schema: DealFileAddFlags,
  run: async (ports, input) => {
    const fromUserFile = input['from-user-file'];
    const source: DealFileSource =
      fromUserFile !== undefined && input.user !== undefined
        ? { kind: 'user-file', userId: input.user, fileId: fromUserFile }
        : {
            kind: 'bytes',
            content: await readLocalFile(input.path ?? ''),
            contentType: 'application/octet-stream',
          };
    const name = input.name ?? (input.path === undefined ? undefined : basename(input.path));
    const file = await addDealFile(ports, {
      deal: { groupId: input.group, dealId: input.deal },
      source,
      ...(name === undefined ? {} : { name }),
      ...(input.type === undefined ? {} : { type: input.type }),
    });
    return toDealFileRecord(file);
  },
});

export const dealFileListCommand = defineCommand({
  name: 'deal-file list',
  usage: 'deal-file list --group <id> --deal <id>',
  summary: "A deal's files, newest first.",
  help: {
    flags: [['--group <id> --deal <id>', 'an existing deal']],
  },
  schema: z.object({ group: idFlag('group'), deal: idFlag('deal') }),
  run: async ({ groups, dealFiles }, input) => {
    if ((await groups.getDeal(input.group, input.deal)) === undefined) {
      throw new OperatorRefusal(`deal ${input.deal} does not exist in group ${input.group}`);
    }
    const files = await dealFiles.listByDeal({ groupId: input.group, dealId: input.deal });
    return files.items.map(toDealFileRecord);
  },
});
