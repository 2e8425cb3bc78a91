import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import * as z from 'zod';
import { settingName, STORAGE_LIMIT_SETTINGS } from '#shared/config/environment.ts';
import { addDealFile, type DealFileSource } from '#shared/deal-files/add-deal-file.ts';
import { toDealFileRecord } from '#shared/deal-files/api/deal-file-response.ts';
import { DynamoGroupRepository } from '#shared/groups/adapters/dynamo-group-repository.ts';
import { addDeal, addGroup, addMember, removeMember } from '#shared/groups/manage-groups.ts';
import { OperatorRefusal } from './operator-refusal.ts';
import { MAX_REALTIME_TOKEN_SECONDS } from '#shared/realtime/realtime-config.ts';
import { withNewKey } from '#shared/realtime/realtime-key-set.ts';
import { MAX_UPLOAD_BYTES } from '#shared/user-files/upload-limits.ts';
import { awsStorage } from '#shared/reconcile/adapters/aws-reconcile-storage.ts';
import {
  reconcileStorage,
  type StoragePorts,
  toUsageRecord,
} from '#shared/reconcile/reconcile-storage.ts';
import { S3BlobStore } from '#shared/blobs/adapters/s3-blob-store.ts';
import { usage } from '#shared/usage/adapters/dynamo-usage-ledger.ts';
import { userItems } from '#shared/removal/adapters/dynamo-user-items.ts';
import { eraseUser } from '#shared/removal/erase-user.ts';
import type { AdapterSources } from '#shared/storage/adapter-sources.ts';
import { blobs } from '#shared/blobs/adapters/s3-blob-store.ts';
import { dealFiles } from '#shared/deal-files/adapters/dynamo-deal-file-repository.ts';
import { fileIdsInBlocksOf } from '#shared/storage/dynamo-block-id-allocator.ts';
import { userFiles } from '#shared/user-files/adapters/dynamo-user-file-repository.ts';
import { composeAdapters } from '#shared/wiring/composition-root.ts';
import {
  fileTypeFlag,
  idFlag,
  isSwitch,
  nameFlag,
  roleFlag,
  secondsFlag,
  switchFlag,
} from './cli-flags.ts';
import type { StageTarget } from './stage-target.ts';
import { S3ScannedObjects } from '#shared/scanning/adapters/s3-scanned-objects.ts';
import type { ScannedFile } from '#shared/scanning/file-scans.ts';
import {
  deleteHeldFile,
  type HeldFile,
  type HeldFilePorts,
  listHeldFiles,
  releaseHeldFile,
  rescanFiles,
} from '#shared/scanning/held-files.ts';
import { fileScans } from '#shared/scanning/adapters/dynamo-file-scans.ts';

/**
 * How long an erasure waits for the user's requests under way to end before its last look:
 * longer than the longest function that writes their items may run (the finalizer's 30 s).
 */
const ERASE_SETTLE_SECONDS = 40;

type TableSources = Pick<AdapterSources, 'documents' | 'TABLE_NAME'>;

/**
 * The repositories and stores a command works through, on the chosen stage: the service's
 * adapters from the composition root, each built when a command first takes it, and those
 * only the operator needs.
 */
export function portsOn(target: StageTarget) {
  return composeAdapters(target.sources, {
    dealFiles,
    userFiles,
    blobs,
    // One command takes one id: a block of one wastes none.
    fileIds: fileIdsInBlocksOf(1),
    realtimeKeys: () => target.realtimeKeys(),
    groups: ({ documents, TABLE_NAME }: TableSources) =>
      new DynamoGroupRepository(documents(), TABLE_NAME),
    userItems,
    storage: ({ documents, s3, TABLE_NAME, BUCKET_NAME }: StageTarget['sources']) =>
      awsStorage({ dynamodb: documents(), tableName: TABLE_NAME, s3: s3(), bucket: BUCKET_NAME }),
    fileScans,
    scannedObjects: async ({ BUCKET_NAME }: StageTarget['sources']) =>
      new S3ScannedObjects(await target.releaser(), BUCKET_NAME),
    scanning: () => target.scanning,
    operator: () => target.operator(),
    usage,
    limits: () => target.limits(),
    // Reads every file's object: on a stage that scans, as the releaser, the one principal
    // besides GuardDuty's the bucket lets read a held file.
    digests: async ({ s3, BUCKET_NAME }: StageTarget['sources']) =>
      new S3BlobStore(target.scanning ? await target.releaser() : s3(), BUCKET_NAME),
  });
}

/**
 * What reconcile reads of a file its table says is waiting for a scan: the object's verdict
 * tag, read as the held-file commands read (the releaser), and the record again.
 */
const scanReader = (ports: Ports): NonNullable<StoragePorts['scans']> => ({
  verdictOf: async (key) => (await ports.scannedObjects).verdictOf(key),
  stillPending: async (key) => {
    const file = ports.fileScans.fileOf(key);
    const record = file === undefined ? undefined : await ports.fileScans.get(file);
    return record?.scan?.status === 'pending';
  },
});

/** A result that reports something to look at: printed as any result, and exit code 3. */
export class Findings {
  readonly report: unknown;

  constructor(report: unknown) {
    this.report = report;
  }
}

/** The ports the held-file commands take, once the releaser's client is ready. */
async function heldFilePorts(ports: Ports): Promise<HeldFilePorts> {
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

function scannedFile(input: FileTarget): ScannedFile {
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

type Ports = ReturnType<typeof portsOn>;

export interface Command {
  /** The words that name it: `deal-file add`. */
  readonly name: string;
  readonly usage: string;
  /** One line: what it does. */
  readonly summary: string;
  /** What `<command> --help` adds: each flag with its meaning, then what to expect. */
  readonly help: CommandHelp;
  /** Flags it takes, besides --stage. */
  readonly flags: readonly string[];
  /** Those of its flags that take no value (`--dry-run`). */
  readonly switches: readonly string[];
  /** Checks the flags; the input for `run`, or the messages that say what is wrong. */
  parse(
    values: Record<string, string | undefined>,
  ): { ok: true; run: Run } | { ok: false; errors: string[] };
}

type Run = (ports: Ports) => Promise<unknown>;

interface CommandHelp {
  /** `[flags, meaning]`, in the order the usage names them; --stage is added to every one. */
  readonly flags: readonly (readonly [string, string])[];
  readonly note?: string;
}

function command<S extends z.ZodType<unknown, Record<string, string | undefined>>>(spec: {
  name: string;
  usage: string;
  summary: string;
  help: CommandHelp;
  schema: S;
  run: (ports: Ports, input: z.output<S>) => Promise<unknown>;
}): Command {
  const shape = (spec.schema as unknown as { shape?: Record<string, unknown> }).shape;
  return {
    name: spec.name,
    usage: spec.usage,
    summary: spec.summary,
    help: spec.help,
    flags: Object.keys(shape ?? {}),
    switches: Object.entries(shape ?? {}).flatMap(([flag, schema]) =>
      isSwitch(schema) ? [flag] : [],
    ),
    parse: (values) => {
      const result = spec.schema.safeParse(values);
      if (!result.success) return { ok: false, errors: result.error.issues.map((i) => i.message) };
      return { ok: true, run: (ports) => spec.run(ports, result.data) };
    },
  };
}

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

export const COMMANDS: readonly Command[] = [
  command({
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
  }),
  command({
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
  }),
  command({
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
  }),
  command({
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
  }),
  command({
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
  }),
  command({
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
  }),
  command({
    name: 'reconcile',
    usage: 'reconcile [--settle-seconds <seconds>] [--verify-digests]',
    summary:
      "Report where the table and the bucket disagree; recount users' usage and repair drift.",
    help: {
      flags: [
        [
          '--settle-seconds <seconds>',
          'ignore writes younger than this (default 900); use 0 only on a stage with no requests under way',
        ],
        [
          '--verify-digests',
          "also read every file's object and compare its SHA-256 with the recorded one (a GET per file: slow and billed on a big bucket)",
        ],
      ],
      note:
        'Prints objects_without_records, records_without_objects, stale_notifications, ' +
        'usage_repaired, uploads_in_flight, objects_settling, checked and clean; on a stage ' +
        'that scans also verdicts_unrecorded; with --verify-digests also digest_mismatches, ' +
        'digests_unreadable, digests_verified and digests_unrecorded. ' +
        "It writes only users' usage items, where their count had drifted or was never " +
        'made; every other repair is left to the operator. Exit 0 when clean, 3 when it ' +
        'found something.',
    },
    schema: z.object({
      'settle-seconds': secondsFlag('settle-seconds'),
      'verify-digests': switchFlag(),
    }),
    run: async (ports, input) => {
      const verifyDigests = input['verify-digests'];
      const digests = verifyDigests ? await ports.digests : undefined;
      const report = await reconcileStorage(
        {
          ...ports.storage,
          usage: ports.usage,
          ...(digests === undefined ? {} : { digest: (key: string) => digests.digest(key) }),
          ...(ports.scanning ? { scans: scanReader(ports) } : {}),
        },
        { settleSeconds: input['settle-seconds'] ?? 900, verifyDigests },
      );
      return report.clean ? report : new Findings(report);
    },
  }),
  command({
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
  }),
  command({
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
        'notifications, idempotency records and group memberships, for good. Deal files they ' +
        'added stay: they belong to their deals. Running it again is harmless.',
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
  }),
  command({
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
  }),
  command({
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
      const held = await releaseHeldFile(await heldFilePorts(ports), scannedFile(input), {
        by: await ports.operator,
        reason: input.reason,
      });
      return { ...heldFileRecord(held), released: true, reason: input.reason };
    },
  }),
  command({
    name: 'scan delete',
    usage: 'scan delete (--user <id> | --group <id> --deal <id>) --file <id> --reason <text>',
    summary: 'Delete a held file for good: its record and every version of its bytes.',
    help: {
      flags: [...FILE_TARGET_HELP, ['--reason <text>', 'why: logged']],
      note: 'Refused for a file the scan does not hold: delete those as their owners do.',
    },
    schema: z.object({ ...FileTargetFlags, reason: reasonFlag }),
    run: async (ports, input) => {
      const held = await deleteHeldFile(await heldFilePorts(ports), scannedFile(input), {
        by: await ports.operator,
        reason: input.reason,
      });
      return { ...heldFileRecord(held), deleted: true };
    },
  }),
  command({
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
      let files: ScannedFile[];
      if (file !== undefined) files = [scannedFile({ ...input, file })];
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
  }),
  command({
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
  }),
];
