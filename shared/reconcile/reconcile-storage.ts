import {
  dealFileObjectKey,
  directUploadObjectKey,
  EXPIRY_ATTRIBUTE,
  PARTITION_KEY,
  SORT_KEY,
  userFileObjectKey,
} from '../data/keys.ts';

/**
 * What the table and the bucket should agree on, and where they do not:
 * - an object with no record: bytes nobody can list or delete (a write that failed halfway);
 * - a record with no object: a file that lists but cannot be downloaded;
 * - a notification left `queued` or `sending` long after a worker should have settled it.
 * An object whose direct upload still waits (its form's bytes under uploads/, or the copy
 * completion writes) is in flight, not an orphan. A record
 * without its object is reported whatever its age: records are written after their object.
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

export interface StoragePorts {
  /** Every item of the table, page by page. */
  readonly items: () => AsyncIterable<readonly Record<string, unknown>[]>;
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

/** The object a file record's bytes live in, by our key convention; undefined for others. */
function objectKeyOf(pk: string, sk: string): string | undefined {
  const fileId = /^FILE#(\d+)$/.exec(sk)?.[1];
  if (fileId === undefined) return undefined;
  const userId = /^USER#(\d+)$/.exec(pk)?.[1];
  if (userId !== undefined) return userFileObjectKey(Number(userId), Number(fileId));
  const deal = /^GROUP#(\d+)#DEAL#(\d+)$/.exec(pk);
  if (deal?.[1] !== undefined && deal[2] !== undefined) {
    return dealFileObjectKey(Number(deal[1]), Number(deal[2]), Number(fileId));
  }
  return undefined;
}

function staleness(item: Record<string, unknown>, now: number, settleMs: number): boolean {
  const time = (name: string) =>
    typeof item[name] === 'string' ? Date.parse(item[name]) : Number.NaN;
  if (item.status === 'sending') {
    // The worker that held the lease died; a redelivery would have marked it unconfirmed.
    return !(time('lease_until') + settleMs > now);
  }
  if (item.status === 'queued') {
    const due = Math.max(
      time('updated_at'),
      Number.isNaN(time('not_before')) ? 0 : time('not_before'),
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
  const records = new Map<string, { pk: string; sk: string }>();
  const pendingUploads = new Set<string>();
  let uploadsInFlight = 0;
  const stale: Reconciliation['stale_notifications'][number][] = [];
  let items = 0;
  for await (const page of ports.items()) {
    for (const item of page) {
      items += 1;
      const pk = String(item[PARTITION_KEY]);
      const sk = String(item[SORT_KEY]);
      const objectKey = objectKeyOf(pk, sk);
      if (objectKey !== undefined) {
        records.set(objectKey, { pk, sk });
      } else if (pk.startsWith('USER#') && sk.startsWith('UPLOAD#')) {
        const expiry = Number(item[EXPIRY_ATTRIBUTE]);
        // DynamoDB's TTL deletes late: an expired record is as good as gone. A waiting
        // upload's form bytes, and the copy a completion may be writing, are in flight.
        if ((item.status === 'pending' || item.status === 'completing') && expiry * 1000 > now) {
          const [userId, fileId] = [Number(pk.slice(5)), Number(sk.slice(7))];
          uploadsInFlight += 1;
          pendingUploads.add(directUploadObjectKey(userId, fileId));
          pendingUploads.add(userFileObjectKey(userId, fileId));
        }
      } else if (
        pk.startsWith('USER#') &&
        sk.startsWith('NOTIFICATION#') &&
        staleness(item, now, settleMs)
      ) {
        stale.push({
          user_id: Number(pk.slice(5)),
          notification_id: sk.slice('NOTIFICATION#'.length),
          status: String(item.status),
          updated_at: String(item.updated_at),
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
