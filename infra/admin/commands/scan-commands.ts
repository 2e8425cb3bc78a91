/** The operator's commands on the files the malware scan holds: `scan …`. */
import * as z from 'zod';
import type { FileRef } from '#shared/scanning/file-scans.ts';
import {
  deleteHeldFile,
  type HeldFile,
  type HeldFilePorts,
  listHeldFiles,
  releaseHeldFile,
  rescanFiles,
} from '#shared/scanning/held-files.ts';
import { idFlag, switchFlag } from '../cli-flags.ts';
import { defineCommand } from '../operator-command.ts';
import type { OperatorPorts } from '../operator-ports.ts';
import { OperatorRefusal } from '../operator-refusal.ts';

/** The ports the held-file commands take, once the releaser's client is ready. */
async function heldFilePorts(ports: OperatorPorts): Promise<HeldFilePorts> {
  if (!ports.scanning) {
    throw new OperatorRefusal('this stage does not scan for malware (malwareScanning is off)');
  }
  return {
    fileScans: ports.fileScans,
    scannedObjects: await ports.scannedObjects,
    blobs: ports.blobs,
  };
}

/** One file, by the flags that name it: a user's (`--user`) or a deal's (`--group --deal`). */
const FileTargetFlags = {
  user: idFlag('user').optional(),
  group: idFlag('group').optional(),
  deal: idFlag('deal').optional(),
  file: idFlag('file'),
};

type FileTarget = { user?: number; group?: number; deal?: number; file: number };

function fileRefOf(input: FileTarget): FileRef {
  if (input.user !== undefined && input.group === undefined && input.deal === undefined) {
    return { kind: 'user-file', userId: input.user, fileId: input.file };
  }
  if (input.user === undefined && input.group !== undefined && input.deal !== undefined) {
    return { kind: 'deal-file', groupId: input.group, dealId: input.deal, fileId: input.file };
  }
  throw new OperatorRefusal(
    'name the file by --user <id> --file <id>, or by --group <id> --deal <id> --file <id>',
  );
}

const FILE_TARGET_HELP: readonly (readonly [string, string])[] = [
  ['--user <id> --file <id>', "a user's file"],
  ['--group <id> --deal <id> --file <id>', "or a deal's file"],
];

const reasonFlag = z
  .string({ error: '--reason is required: say why, for the log' })
  .refine((value) => value.trim() !== '', { error: '--reason must not be empty' });

/** A held file as the commands print it. */
const heldFileRecord = (held: HeldFile) => ({
  ...(held.file.kind === 'user-file'
    ? { user_id: held.file.userId }
    : { group_id: held.file.groupId, deal_id: held.file.dealId }),
  file_id: held.file.fileId,
  name: held.name,
  filesize: held.filesize,
  created_at: held.createdAt,
  held: held.standing,
  ...(held.scan?.status === 'scanned' ? { scanned_at: held.scan.at } : {}),
});

export const scanListCommand = defineCommand({
  name: 'scan list',
  usage: 'scan list',
  summary: 'The files the malware scan holds: infected, not judged, pending, never scanned.',
  help: {
    flags: [],
    note:
      'Prints each held file, oldest first, with `held`: THREATS_FOUND, UNSUPPORTED, ' +
      'ACCESS_DENIED, FAILED, pending (a scan under way) or unscanned (stored before ' +
      'scanning began). A sweep of the whole table: for an operator, not for a schedule.',
  },
  schema: z.object({}),
  run: async (ports) => (await listHeldFiles(await heldFilePorts(ports))).map(heldFileRecord),
});

export const scanReleaseCommand = defineCommand({
  name: 'scan release',
  usage: 'scan release (--user <id> | --group <id> --deal <id>) --file <id> --reason <text>',
  summary: 'Let a held file be downloaded after all: an explicit, logged decision.',
  help: {
    flags: [...FILE_TARGET_HELP, ['--reason <text>', 'why: kept with the file and logged']],
    note:
      "Tags the object so the bucket hands it out (on AWS as the stage's releaser role), " +
      'then records the release with who and why. Refused for a file the scan does not hold.',
  },
  schema: z.object({ ...FileTargetFlags, reason: reasonFlag }),
  run: async (ports, input) => {
    const held = await releaseHeldFile(await heldFilePorts(ports), fileRefOf(input), {
      by: await ports.operator,
      reason: input.reason,
    });
    return { ...heldFileRecord(held), released: true, reason: input.reason };
  },
});

export const scanDeleteCommand = defineCommand({
  name: 'scan delete',
  usage: 'scan delete (--user <id> | --group <id> --deal <id>) --file <id> --reason <text>',
  summary: 'Delete a held file for good: its record and every version of its bytes.',
  help: {
    flags: [...FILE_TARGET_HELP, ['--reason <text>', 'why: logged']],
    note: 'Refused for a file the scan does not hold: delete those as their owners do.',
  },
  schema: z.object({ ...FileTargetFlags, reason: reasonFlag }),
  run: async (ports, input) => {
    const held = await deleteHeldFile(await heldFilePorts(ports), fileRefOf(input), {
      by: await ports.operator,
      reason: input.reason,
    });
    return { ...heldFileRecord(held), deleted: true };
  },
});

export const scanRescanCommand = defineCommand({
  name: 'scan rescan',
  usage:
    'scan rescan (--unscanned | --failed | (--user <id> | --group <id> --deal <id>) --file <id>) --reason <text>',
  summary: 'Send files to be scanned again: those stored before scanning, or whose scan failed.',
  help: {
    flags: [
      ['--unscanned', 'every file stored before scanning began'],
      ['--failed', 'every file whose scan failed (FAILED, ACCESS_DENIED)'],
      ...FILE_TARGET_HELP,
      ['--reason <text>', 'why: logged'],
    ],
    note:
      'Writes each object anew (a copy onto itself), which GuardDuty scans as it scans any ' +
      'new object, and marks the file pending. Each scan is billed.',
  },
  schema: z.object({
    ...FileTargetFlags,
    file: idFlag('file').optional(),
    unscanned: switchFlag(),
    failed: switchFlag(),
    reason: reasonFlag,
  }),
  run: async (ports, input) => {
    const held = await heldFilePorts(ports);
    const { file } = input;
    let files: FileRef[];
    if (file !== undefined) files = [fileRefOf({ ...input, file })];
    else if (input.unscanned || input.failed) {
      files = (await listHeldFiles(held))
        .filter(
          ({ standing }) =>
            (input.unscanned && standing === 'unscanned') ||
            (input.failed && (standing === 'FAILED' || standing === 'ACCESS_DENIED')),
        )
        .map((found) => found.file);
    } else throw new OperatorRefusal('give --unscanned, --failed or a file to rescan');
    return rescanFiles(held, files, { by: await ports.operator, reason: input.reason });
  },
});
