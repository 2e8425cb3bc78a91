/**
 * What the table and the bucket should agree on, and where they do not:
 * - an object with no record: bytes nobody can list or delete (a write that failed halfway);
 * - a record with no object: a file that lists but cannot be downloaded;
 * - a notification left `queued` or `sending` long after a worker should have settled it.
 * An object whose direct upload still waits (its form's bytes, or the copy completion
 * writes) is in flight, not an orphan. A record without its object is reported whatever its
 * age: records are written after their object.
 */
export interface Reconciliation {
  readonly clean: boolean;
  readonly objects_without_records: readonly string[];
  readonly records_without_objects: readonly { pk: string; sk: string; object_key: string }[];
  readonly stale_notifications: readonly {
    user_id: number;
    notification_id: string;
    status: string;
    updated_at: string;
  }[];
  /** Direct uploads signed but not finished, with their object (or none yet). */
  readonly uploads_in_flight: number;
  /** Objects younger than the settle time, not judged. */
  readonly objects_settling: number;
  readonly checked: { readonly items: number; readonly objects: number };
}

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
  /** A file's record, a user's or a deal's, and the object its bytes must be in. */
  | { readonly kind: 'file'; readonly record: RecordKey; readonly objectKey: string }
  /** A direct upload we signed, and the objects it writes while it waits. */
  | {
      readonly kind: 'direct-upload';
      readonly status: string | undefined;
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
  /** Anything else: a group, a member, a deal, a counter, a rate limit, an idempotency record. */
  | { readonly kind: 'other' };

export interface StoragePorts {
  /** Every item of the table, page by page. */
  readonly items: () => AsyncIterable<readonly StoredItem[]>;
  /** Every current object of the bucket. */
  readonly objects: () => AsyncIterable<readonly { key: string; lastModified: Date }[]>;
  readonly now?: () => Date;
}

export interface ReconcileOptions {
  /**
   * Writes younger than this may still be settling (an upload between its object and its
   * record, a notification between tries): they are counted, not judged.
   */
  readonly settleSeconds: number;
}

type StoredNotification = Extract<StoredItem, { kind: 'notification' }>;

function staleness(item: StoredNotification, now: number, settleMs: number): boolean {
  const time = (value: string | undefined) =>
    value === undefined ? Number.NaN : Date.parse(value);
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

/** Reads the whole table and the whole bucket once, and says where they disagree. */
export async function reconcileStorage(
  ports: StoragePorts,
  options: ReconcileOptions,
): Promise<Reconciliation> {
  const now = (ports.now?.() ?? new Date()).getTime();
  const settleMs = options.settleSeconds * 1000;
  const records = new Map<string, RecordKey>();
  const pendingUploads = new Set<string>();
  let uploadsInFlight = 0;
  const stale: Reconciliation['stale_notifications'][number][] = [];
  let items = 0;
  for await (const page of ports.items()) {
    for (const item of page) {
      items += 1;
      if (item.kind === 'file') {
        records.set(item.objectKey, item.record);
      } else if (item.kind === 'direct-upload') {
        // DynamoDB's TTL deletes late: an expired record is as good as gone. A waiting
        // upload's form bytes, and the copy a completion may be writing, are in flight.
        const waiting = item.status === 'pending' || item.status === 'completing';
        if (waiting && item.expiresAtSeconds * 1000 > now) {
          uploadsInFlight += 1;
          for (const key of item.objectKeys) pendingUploads.add(key);
        }
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
  const orphans: string[] = [];
  const seen = new Set<string>();
  let objects = 0;
  let settling = 0;
  for await (const page of ports.objects()) {
    for (const { key, lastModified } of page) {
      objects += 1;
      seen.add(key);
      if (records.has(key) || pendingUploads.has(key)) continue;
      if (lastModified.getTime() + settleMs > now) settling += 1;
      else orphans.push(key);
    }
  }
  const missing = [...records]
    .filter(([objectKey]) => !seen.has(objectKey))
    .map(([objectKey, { pk, sk }]) => ({ pk, sk, object_key: objectKey }))
    .sort((a, b) => a.object_key.localeCompare(b.object_key));
  return {
    clean: orphans.length === 0 && missing.length === 0 && stale.length === 0,
    objects_without_records: orphans.sort(),
    records_without_objects: missing,
    stale_notifications: stale,
    uploads_in_flight: uploadsInFlight,
    objects_settling: settling,
    checked: { items, objects },
  };
}
