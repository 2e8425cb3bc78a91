import { BlobNotFoundError } from '../blobs/blob-store.ts';
import { completableUntil } from '../direct-uploads/direct-upload.ts';
import { AccountErased } from '../domain/outcome.ts';
import type { UsageLedger } from '../usage/usage-ledger.ts';
import type { Usage } from '../usage/usage.ts';

/**
 * What the table and the bucket should agree on, and where they do not:
 * - an object with no record: bytes nobody can list or delete (a write that failed halfway);
 * - a record with no object: a file that lists but cannot be downloaded;
 * - a notification left `queued` or `sending` long after a worker should have settled it;
 * - a user's stored usage that is not what their files and pending uploads add up to: it is
 *   counted again and repaired, the one thing reconcile writes;
 * - with `verifyDigests`, a file whose object's bytes no longer have its recorded SHA-256, or
 *   whose object could not be read;
 * - on a stage that scans, a file whose record still waits for its scan while its object
 *   carries the scanner's verdict: the verdict's event was lost.
 * An object whose direct upload can still be completed (its form's bytes, or the copy
 * completion writes) is in flight, not an orphan. A record without its object is reported
 * whatever its age: records are written after their object.
 */
export interface Reconciliation {
  /**
   * Nothing was wrong: no orphan, no missing object, no stale notification, no usage that
   * had drifted from its items (a first count of a user never counted is no drift), no
   * digest mismatch or unreadable object, and no verdict left unrecorded.
   */
  readonly clean: boolean;
  readonly objects_without_records: readonly string[];
  readonly records_without_objects: readonly { pk: string; sk: string; object_key: string }[];
  readonly stale_notifications: readonly {
    user_id: number;
    notification_id: string;
    status: string;
    updated_at: string;
  }[];
  /**
   * Each user whose usage was written: counted for the first time (`before` null), or
   * repaired from what had drifted. By user id.
   */
  readonly usage_repaired: readonly {
    user_id: number;
    before: UsageRecord | null;
    after: UsageRecord;
  }[];
  /** With `verifyDigests`: records whose object's bytes are not the ones recorded. */
  readonly digest_mismatches?: readonly {
    pk: string;
    sk: string;
    object_key: string;
    recorded: string;
    actual: string;
  }[];
  /** With `verifyDigests`: records whose object could not be read, and why. */
  readonly digests_unreadable?: readonly {
    pk: string;
    sk: string;
    object_key: string;
    reason: string;
  }[];
  /** With `verifyDigests`: records whose object's bytes have their recorded SHA-256. */
  readonly digests_verified?: number;
  /** With `verifyDigests`: records with no SHA-256 (stored before digests were kept). */
  readonly digests_unrecorded?: number;
  /**
   * On a stage that scans: records still waiting for their scan whose object carries the
   * scanner's verdict (settled objects only), with that verdict.
   */
  readonly verdicts_unrecorded?: readonly {
    pk: string;
    sk: string;
    object_key: string;
    verdict: string;
  }[];
  /** On a stage that scans: records waiting for their scan whose object's tag could not be read. */
  readonly verdicts_unreadable?: readonly {
    pk: string;
    sk: string;
    object_key: string;
    reason: string;
  }[];
  /** Direct uploads signed and still completable, with their object (or none yet). */
  readonly uploads_in_flight: number;
  /** Objects younger than the settle time, not judged. */
  readonly objects_settling: number;
  /** What was read: items, objects, and users whose usage was counted. */
  readonly checked: { readonly items: number; readonly objects: number; readonly users: number };
}

/** A usage as the operator CLI prints it: files and bytes, each used and reserved. */
export interface UsageRecord {
  readonly files: { readonly used: number; readonly reserved: number };
  readonly bytes: { readonly used: number; readonly reserved: number };
}

export const toUsageRecord = (usage: Usage): UsageRecord => ({
  files: { used: usage.used.files, reserved: usage.reserved.files },
  bytes: { used: usage.used.bytes, reserved: usage.reserved.bytes },
});

/** The key of a record, as the table holds it: reported, never read. */
interface RecordKey {
  readonly pk: string;
  readonly sk: string;
}

/**
 * An item of the table, as the store reads it for reconcile: what it is, and the values the
 * judgement needs, as they are stored (a value of another type reads as absent).
 */
export type StoredItem =
  /** A file's record, a user's (with their id) or a deal's, and the object of its bytes. */
  | {
      readonly kind: 'file';
      readonly record: RecordKey;
      readonly objectKey: string;
      readonly userId: number | undefined;
      /** The SHA-256 recorded for its bytes (base64); absent on files stored before. */
      readonly sha256: string | undefined;
      /** Whether its record still waits for the malware scan's verdict. */
      readonly scanPending: boolean;
    }
  /** A direct upload we signed, and the objects it writes while it waits. */
  | {
      readonly kind: 'direct-upload';
      readonly userId: number;
      readonly status: string | undefined;
      /** When its signed form expires (`expires_at`). */
      readonly formExpiresAt: string | undefined;
      /** While `completing`, until when its completer holds it. */
      readonly claimUntil: string | undefined;
      /** When DynamoDB's TTL may delete it, in epoch seconds (NaN when it has none). */
      readonly expiresAtSeconds: number;
      readonly objectKeys: readonly string[];
    }
  | {
      readonly kind: 'notification';
      readonly userId: number;
      readonly notificationId: string;
      readonly status: string | undefined;
      readonly updatedAt: string | undefined;
      readonly leaseUntil: string | undefined;
      readonly notBefore: string | undefined;
    }
  /** A user's stored usage. */
  | { readonly kind: 'usage'; readonly userId: number }
  /** A user's erasure marker: they hold nothing, and their usage is not counted. */
  | { readonly kind: 'erased'; readonly userId: number }
  /** Anything else: a group, a member, a deal, a counter, a rate limit, an idempotency record. */
  | { readonly kind: 'other' };

export interface StoragePorts {
  /** Every item of the table, page by page. */
  readonly items: () => AsyncIterable<readonly StoredItem[]>;
  /** Every current object of the bucket. */
  readonly objects: () => AsyncIterable<readonly { key: string; lastModified: Date }[]>;
  /** Users' usage, counted again from their items (and stored when it differs). */
  readonly usage: Pick<UsageLedger, 'recount'>;
  /**
   * The SHA-256 of an object's bytes (base64), read through: BlobNotFoundError when it is
   * gone. Read only with `verifyDigests`.
   */
  readonly digest?: (objectKey: string) => Promise<string>;
  /**
   * On a stage that scans: the verdict the scanner left on an object (undefined when none, or
   * the object is gone), and whether its file's record still waits for one. Read only for
   * records read as pending whose object has settled.
   */
  readonly scans?: {
    readonly verdictOf: (objectKey: string) => Promise<string | undefined>;
    readonly stillPending: (objectKey: string) => Promise<boolean>;
  };
  readonly now?: () => Date;
}

export interface ReconcileOptions {
  /**
   * Writes younger than this may still be settling (an upload between its object and its
   * record, a notification between tries): they are counted, not judged.
   */
  readonly settleSeconds: number;
  /** Read every file's object and compare its SHA-256 with the recorded one. */
  readonly verifyDigests?: boolean;
}

/** How many users are recounted, or objects read, at once. */
const CONCURRENCY = 8;

type StoredNotification = Extract<StoredItem, { kind: 'notification' }>;
type StoredDirectUpload = Extract<StoredItem, { kind: 'direct-upload' }>;

const time = (value: string | undefined) => (value === undefined ? Number.NaN : Date.parse(value));

function staleness(item: StoredNotification, now: number, settleMs: number): boolean {
  if (item.status === 'sending') {
    // The worker that held the lease died; a redelivery would have marked it unconfirmed.
    return !(time(item.leaseUntil) + settleMs > now);
  }
  if (item.status === 'queued') {
    const due = Math.max(
      time(item.updatedAt),
      Number.isNaN(time(item.notBefore)) ? 0 : time(item.notBefore),
    );
    return !(due + settleMs > now);
  }
  return false;
}

/**
 * Whether a direct upload may still write its objects: it waits (`pending`, `completing`),
 * and can still be completed (until a day after its form expires, or while a completer's
 * claim holds), and no TTL has passed on it (records stored before a waiting upload lost
 * its TTL have one; DynamoDB deletes late, and an expired record is as good as gone).
 */
function inFlight(item: StoredDirectUpload, now: number): boolean {
  if (item.status !== 'pending' && item.status !== 'completing') return false;
  if (item.expiresAtSeconds * 1000 <= now) return false;
  const { formExpiresAt } = item;
  const completable =
    formExpiresAt !== undefined &&
    !Number.isNaN(time(formExpiresAt)) &&
    time(completableUntil({ expiresAt: formExpiresAt })) > now;
  const claimed = item.status === 'completing' && time(item.claimUntil) > now;
  return completable || claimed;
}

/** Runs `work` on each of `inputs`, `limit` at a time. */
async function eachAtMost<T>(
  inputs: readonly T[],
  limit: number,
  work: (input: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < inputs.length) {
      const input = inputs[next++] as T;
      await work(input);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, inputs.length) }, worker));
}

const sameUsage = (a: UsageRecord, b: UsageRecord): boolean =>
  a.files.used === b.files.used &&
  a.files.reserved === b.files.reserved &&
  a.bytes.used === b.bytes.used &&
  a.bytes.reserved === b.bytes.reserved;

/** A file's record as reconcile keeps it, by the key of its object. */
type FileRecord = RecordKey & {
  readonly sha256: string | undefined;
  readonly scanPending: boolean;
};

type StaleNotification = Reconciliation['stale_notifications'][number];
type UsageRepair = Reconciliation['usage_repaired'][number];

/** What the table holds, read once: what the bucket and the usage are judged against. */
interface TableReading {
  readonly records: ReadonlyMap<string, FileRecord>;
  /** The objects of direct uploads still in flight: a waiting form's, a completion's copy. */
  readonly pendingUploads: ReadonlySet<string>;
  /** Users whose usage counts anything (a usage, a file or a direct upload), not erased. */
  readonly users: readonly number[];
  readonly uploadsInFlight: number;
  readonly stale: readonly StaleNotification[];
  readonly items: number;
}

/** Reads every item of the table, and keeps what the judgements need. */
async function readTable(
  ports: StoragePorts,
  now: number,
  settleMs: number,
): Promise<TableReading> {
  const records = new Map<string, FileRecord>();
  const pendingUploads = new Set<string>();
  const counted = new Set<number>();
  const erased = new Set<number>();
  let uploadsInFlight = 0;
  const stale: StaleNotification[] = [];
  let items = 0;
  for await (const page of ports.items()) {
    for (const item of page) {
      items += 1;
      if (item.kind === 'file') {
        records.set(item.objectKey, {
          ...item.record,
          sha256: item.sha256,
          scanPending: item.scanPending,
        });
        if (item.userId !== undefined) counted.add(item.userId);
      } else if (item.kind === 'direct-upload') {
        counted.add(item.userId);
        if (inFlight(item, now)) {
          uploadsInFlight += 1;
          for (const key of item.objectKeys) pendingUploads.add(key);
        }
      } else if (item.kind === 'usage') {
        counted.add(item.userId);
      } else if (item.kind === 'erased') {
        erased.add(item.userId);
      } else if (item.kind === 'notification' && staleness(item, now, settleMs)) {
        stale.push({
          user_id: item.userId,
          notification_id: item.notificationId,
          status: String(item.status),
          updated_at: String(item.updatedAt),
        });
      }
    }
  }
  const users = [...counted].filter((userId) => !erased.has(userId)).sort((a, b) => a - b);
  return { records, pendingUploads, users, uploadsInFlight, stale, items };
}

/** What the bucket holds, read once and judged against the table. */
interface BucketReading {
  /** Settled objects that no record and no upload in flight accounts for, by key. */
  readonly orphans: readonly string[];
  readonly seen: ReadonlySet<string>;
  /** Settled objects whose record waits for a verdict: the scanner's tag is read on each. */
  readonly awaitingVerdicts: readonly string[];
  readonly objects: number;
  readonly settling: number;
}

/** Reads every current object of the bucket, and judges each settled one by the table. */
async function readBucket(
  ports: StoragePorts,
  table: TableReading,
  now: number,
  settleMs: number,
): Promise<BucketReading> {
  const { records, pendingUploads } = table;
  const orphans: string[] = [];
  const seen = new Set<string>();
  const awaitingVerdicts: string[] = [];
  let objects = 0;
  let settling = 0;
  for await (const page of ports.objects()) {
    for (const { key, lastModified } of page) {
      objects += 1;
      seen.add(key);
      const settled = lastModified.getTime() + settleMs <= now;
      if (settled && records.get(key)?.scanPending === true) awaitingVerdicts.push(key);
      if (records.has(key) || pendingUploads.has(key)) continue;
      if (settled) orphans.push(key);
      else settling += 1;
    }
  }
  return { orphans: orphans.sort(), seen, awaitingVerdicts, objects, settling };
}

/** The records whose object the bucket does not hold, by object key. */
const recordsWithoutObjects = (
  records: ReadonlyMap<string, FileRecord>,
  seen: ReadonlySet<string>,
): Reconciliation['records_without_objects'] =>
  [...records]
    .filter(([objectKey]) => !seen.has(objectKey))
    .map(([objectKey, { pk, sk }]) => ({ pk, sk, object_key: objectKey }))
    .sort((a, b) => a.object_key.localeCompare(b.object_key));

/**
 * Counts each user's usage again (the ledger stores it where it differs): each user counted
 * for the first time or repaired, by user id, and how many of them had drifted.
 */
async function recountUsage(
  usage: StoragePorts['usage'],
  users: readonly number[],
): Promise<{ repaired: UsageRepair[]; drifted: number }> {
  const repaired: UsageRepair[] = [];
  let drifted = 0;
  await eachAtMost(users, CONCURRENCY, async (userId) => {
    let recount;
    try {
      recount = await usage.recount(userId);
    } catch (error) {
      // Erased since the table was read: nothing of theirs is counted any more.
      if (error instanceof AccountErased) return;
      throw error;
    }
    const before = recount.before === undefined ? null : toUsageRecord(recount.before);
    const after = toUsageRecord(recount.after);
    if (before !== null && sameUsage(before, after)) return;
    if (before !== null) drifted += 1;
    repaired.push({ user_id: userId, before, after });
  });
  repaired.sort((a, b) => a.user_id - b.user_id);
  return { repaired, drifted };
}

/**
 * Reads the whole table and the whole bucket once, and says where they disagree; counts
 * every user's usage again and repairs what drifted; with `verifyDigests`, reads every file's
 * object too.
 */
export async function reconcileStorage(
  ports: StoragePorts,
  options: ReconcileOptions,
): Promise<Reconciliation> {
  const now = (ports.now?.() ?? new Date()).getTime();
  const settleMs = options.settleSeconds * 1000;
  const table = await readTable(ports, now, settleMs);
  const bucket = await readBucket(ports, table, now, settleMs);
  const missing = recordsWithoutObjects(table.records, bucket.seen);
  const { repaired, drifted } = await recountUsage(ports.usage, table.users);
  const digests =
    options.verifyDigests === true
      ? await verifyDigests(ports, table.records, bucket.seen)
      : undefined;
  const verdicts =
    ports.scans === undefined
      ? undefined
      : await unrecordedVerdicts(ports.scans, table.records, bucket.awaitingVerdicts);
  return {
    clean:
      bucket.orphans.length === 0 &&
      missing.length === 0 &&
      table.stale.length === 0 &&
      drifted === 0 &&
      (digests?.digest_mismatches.length ?? 0) === 0 &&
      (digests?.digests_unreadable.length ?? 0) === 0 &&
      (verdicts?.unrecorded.length ?? 0) === 0 &&
      (verdicts?.unreadable.length ?? 0) === 0,
    objects_without_records: bucket.orphans,
    records_without_objects: missing,
    stale_notifications: table.stale,
    usage_repaired: repaired,
    ...digests,
    ...(verdicts === undefined
      ? {}
      : { verdicts_unrecorded: verdicts.unrecorded, verdicts_unreadable: verdicts.unreadable }),
    uploads_in_flight: table.uploadsInFlight,
    objects_settling: bucket.settling,
    checked: { items: table.items, objects: bucket.objects, users: table.users.length },
  };
}

/**
 * The verdicts the scanner left on objects whose records still wait for one. The record is
 * read again after the tag, so a verdict that landed meanwhile is not reported; a tag that
 * cannot be read is reported with the reason, and the others are read on.
 */
async function unrecordedVerdicts(
  scans: NonNullable<StoragePorts['scans']>,
  records: ReadonlyMap<string, RecordKey>,
  objectKeys: readonly string[],
) {
  const unrecorded: NonNullable<Reconciliation['verdicts_unrecorded']>[number][] = [];
  const unreadable: NonNullable<Reconciliation['verdicts_unreadable']>[number][] = [];
  await eachAtMost(objectKeys, CONCURRENCY, async (objectKey) => {
    const record = records.get(objectKey);
    if (record === undefined) return;
    const { pk, sk } = record;
    let verdict: string | undefined;
    try {
      verdict = await scans.verdictOf(objectKey);
    } catch (error) {
      // One tag it cannot read is a finding, never the end of the run.
      const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      unreadable.push({ pk, sk, object_key: objectKey, reason });
      return;
    }
    if (verdict === undefined) return;
    if (!(await scans.stillPending(objectKey))) return;
    unrecorded.push({ pk, sk, object_key: objectKey, verdict });
  });
  const byKey = (a: { object_key: string }, b: { object_key: string }) =>
    a.object_key.localeCompare(b.object_key);
  return { unrecorded: unrecorded.sort(byKey), unreadable: unreadable.sort(byKey) };
}

/**
 * Reads the object of every file record that has one and a recorded SHA-256, and compares.
 * An object that went since it was listed (its file deleted meanwhile) is not judged; one
 * that cannot be read is reported with the reason, and the others are read on.
 */
async function verifyDigests(
  ports: StoragePorts,
  records: ReadonlyMap<string, RecordKey & { readonly sha256: string | undefined }>,
  seen: ReadonlySet<string>,
) {
  const { digest } = ports;
  if (digest === undefined) throw new Error('verifyDigests needs a digest port');
  const mismatches: NonNullable<Reconciliation['digest_mismatches']>[number][] = [];
  const unreadable: NonNullable<Reconciliation['digests_unreadable']>[number][] = [];
  let verified = 0;
  let unrecorded = 0;
  const toRead: [string, RecordKey & { readonly sha256: string }][] = [];
  for (const [objectKey, record] of records) {
    if (record.sha256 === undefined) unrecorded += 1;
    else if (seen.has(objectKey)) toRead.push([objectKey, { ...record, sha256: record.sha256 }]);
  }
  await eachAtMost(toRead, CONCURRENCY, async ([objectKey, { pk, sk, sha256 }]) => {
    let actual: string;
    try {
      actual = await digest(objectKey);
    } catch (error) {
      if (error instanceof BlobNotFoundError) return;
      const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      unreadable.push({ pk, sk, object_key: objectKey, reason });
      return;
    }
    if (actual === sha256) verified += 1;
    else mismatches.push({ pk, sk, object_key: objectKey, recorded: sha256, actual });
  });
  mismatches.sort((a, b) => a.object_key.localeCompare(b.object_key));
  unreadable.sort((a, b) => a.object_key.localeCompare(b.object_key));
  return {
    digest_mismatches: mismatches,
    digests_unreadable: unreadable,
    digests_verified: verified,
    digests_unrecorded: unrecorded,
  };
}
