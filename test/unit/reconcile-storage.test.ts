import { describe, expect, it } from 'vitest';
import { storedItem } from '#shared/reconcile/adapters/aws-reconcile-storage.ts';
import { BlobNotFoundError } from '#shared/blobs/blob-store.ts';
import { AccountErased } from '#shared/domain/outcome.ts';
import { reconcileStorage, type StoragePorts } from '#shared/reconcile/reconcile-storage.ts';
import type { Usage } from '#shared/usage/usage.ts';

const NOW = new Date('2026-11-21T12:00:00.000Z');
const HOUR_AGO = new Date(NOW.getTime() - 3_600_000);

const toAsync = <T>(pages: readonly T[]): AsyncIterable<T> => ({
  [Symbol.asyncIterator]: () => {
    let i = 0;
    return {
      next: () =>
        Promise.resolve(
          i < pages.length
            ? { value: pages[i++] as T, done: false }
            : { value: undefined, done: true },
        ),
    };
  },
});

const usageOf = (files: number, bytes: number, reserved = 0): Usage => ({
  used: { files, bytes },
  reserved: { files: reserved, bytes: reserved * 10 },
});

/** A ledger whose recount finds what `counts` says (the same as stored unless told). */
function ledger(counts: Record<number, { before: Usage | undefined; after: Usage }> = {}) {
  const recounted: number[] = [];
  return {
    recounted,
    recount: (userId: number) => {
      recounted.push(userId);
      if (userId === 666) return Promise.reject(new AccountErased());
      return Promise.resolve(counts[userId] ?? { before: usageOf(0, 0), after: usageOf(0, 0) });
    },
  };
}

function storage(
  items: Record<string, unknown>[],
  keys: string[],
  modified = HOUR_AGO,
  ports: Partial<StoragePorts> = {},
): StoragePorts {
  return {
    // As the adapter reads them: the table's items are its layout, not the use case's.
    items: () => toAsync([items.map(storedItem)]),
    objects: () => toAsync([keys.map((key) => ({ key, lastModified: modified }))]),
    usage: ledger(),
    now: () => NOW,
    ...ports,
  };
}

/** A direct upload as it is stored now: no TTL while it waits. */
const pending = (userId: number, id: number, formExpiresAt: Date, extra = {}) => ({
  PK: `USER#${String(userId)}`,
  SK: `UPLOAD#${String(id)}`,
  status: 'pending',
  expires_at: formExpiresAt.toISOString(),
  ...extra,
});

const HOURS = 3_600_000;

describe('reconcileStorage: direct uploads', () => {
  it('takes an object whose direct upload is still pending as in flight, not an orphan', async () => {
    const result = await reconcileStorage(
      storage([pending(2, 22, new Date(NOW.getTime() + 60_000))], ['users/2/files/22']),
      { settleSeconds: 0 },
    );
    expect(result).toMatchObject({
      clean: true,
      objects_without_records: [],
      uploads_in_flight: 1,
    });
  });

  it('keeps a waiting upload in flight for a day after its form expires, with no TTL', async () => {
    const result = await reconcileStorage(
      storage([pending(2, 25, new Date(NOW.getTime() - 23 * HOURS))], ['uploads/2/25']),
      { settleSeconds: 0 },
    );
    expect(result).toMatchObject({
      clean: true,
      objects_without_records: [],
      uploads_in_flight: 1,
    });
  });

  it('calls the object an orphan once the upload can no longer be completed', async () => {
    const result = await reconcileStorage(
      storage([pending(2, 23, new Date(NOW.getTime() - 25 * HOURS))], ['users/2/files/23']),
      { settleSeconds: 0 },
    );
    expect(result).toMatchObject({
      clean: false,
      objects_without_records: ['users/2/files/23'],
      uploads_in_flight: 0,
    });
  });

  it('keeps one a completer still holds in flight, however late', async () => {
    const result = await reconcileStorage(
      storage(
        [
          pending(2, 26, new Date(NOW.getTime() - 25 * HOURS), {
            status: 'completing',
            claim_until: new Date(NOW.getTime() + 60_000).toISOString(),
          }),
        ],
        ['users/2/files/26'],
      ),
      { settleSeconds: 0 },
    );
    expect(result).toMatchObject({ clean: true, uploads_in_flight: 1 });
  });

  it('takes a record stored with a TTL that has passed as gone', async () => {
    const result = await reconcileStorage(
      storage(
        [
          pending(2, 27, new Date(NOW.getTime() + 60_000), {
            expiration: Math.floor(NOW.getTime() / 1000) - 1,
          }),
        ],
        ['uploads/2/27'],
      ),
      { settleSeconds: 0 },
    );
    expect(result).toMatchObject({
      objects_without_records: ['uploads/2/27'],
      uploads_in_flight: 0,
    });
  });

  it('does not take a refused upload as in flight', async () => {
    const result = await reconcileStorage(
      storage(
        [pending(2, 28, new Date(NOW.getTime() + 60_000), { status: 'rejected' })],
        ['uploads/2/28'],
      ),
      { settleSeconds: 0 },
    );
    expect(result).toMatchObject({
      objects_without_records: ['uploads/2/28'],
      uploads_in_flight: 0,
    });
  });
});

describe('reconcileStorage', () => {
  it('counts an object younger than the settle time, without judging it', async () => {
    const result = await reconcileStorage(
      storage([], ['users/2/files/24'], new Date(NOW.getTime() - 60_000)),
      { settleSeconds: 900 },
    );
    expect(result).toMatchObject({ clean: true, objects_settling: 1 });
  });

  it('matches deal-file records to their objects by key, and ignores other items', async () => {
    const result = await reconcileStorage(
      storage(
        [
          { PK: 'GROUP#5#DEAL#6', SK: 'FILE#31' },
          { PK: 'GROUP#5', SK: 'MEMBER#7' },
          { PK: 'COUNTER#file', SK: 'COUNTER#file' },
        ],
        ['groups/5/deals/6/files/31'],
      ),
      { settleSeconds: 0 },
    );
    expect(result).toMatchObject({ clean: true, checked: { items: 3, objects: 1, users: 0 } });
  });
});

describe('reconcileStorage: usage', () => {
  const items = [
    { PK: 'USER#1', SK: 'FILE#11' },
    { PK: 'USER#2', SK: 'USAGE' },
    pending(3, 33, new Date(NOW.getTime() + 60_000)),
    // Only a notification: nothing of theirs counts, so no usage is written for them.
    { PK: 'USER#4', SK: 'NOTIFICATION#x', status: 'sent' },
    // Erased: their usage is not counted.
    { PK: 'USER#5', SK: 'ERASED' },
    { PK: 'USER#5', SK: 'USAGE' },
    // Erased while reconcile ran.
    { PK: 'USER#666', SK: 'USAGE' },
  ];
  const keys = ['users/1/files/11'];

  it('recounts each user who holds anything, and lists what it wrote', async () => {
    const usage = ledger({
      1: { before: undefined, after: usageOf(1, 5) },
      2: { before: usageOf(6, 50), after: usageOf(1, 5) },
      3: { before: usageOf(0, 0, 1), after: usageOf(0, 0, 1) },
    });
    const result = await reconcileStorage(storage(items, keys, HOUR_AGO, { usage }), {
      settleSeconds: 0,
    });
    expect(usage.recounted.sort((a, b) => a - b)).toEqual([1, 2, 3, 666]);
    expect(result.usage_repaired).toEqual([
      {
        user_id: 1,
        before: null,
        after: { files: { used: 1, reserved: 0 }, bytes: { used: 5, reserved: 0 } },
      },
      {
        user_id: 2,
        before: { files: { used: 6, reserved: 0 }, bytes: { used: 50, reserved: 0 } },
        after: { files: { used: 1, reserved: 0 }, bytes: { used: 5, reserved: 0 } },
      },
    ]);
    // A usage that had drifted was wrong; a first count was not.
    expect(result.clean).toBe(false);
    expect(result.checked.users).toBe(4);
  });

  it('stays clean when the only usage written is a first count', async () => {
    const usage = ledger({ 1: { before: undefined, after: usageOf(1, 5) } });
    const result = await reconcileStorage(storage(items, keys, HOUR_AGO, { usage }), {
      settleSeconds: 0,
    });
    expect(result).toMatchObject({ clean: true, usage_repaired: [{ user_id: 1, before: null }] });
  });
});

describe('reconcileStorage: digests', () => {
  const file = (pk: string, id: number, sha256?: string) => ({
    PK: pk,
    SK: `FILE#${String(id)}`,
    ...(sha256 === undefined ? {} : { sha256 }),
  });
  const items = [
    file('USER#1', 1, 'good'),
    file('USER#1', 2, 'recorded'),
    file('USER#1', 3),
    file('GROUP#5#DEAL#6', 4, 'good'),
    // Its object is missing: reported as such, not read.
    file('USER#1', 5, 'good'),
    // Deleted, object and record, since the bucket was listed.
    file('USER#1', 6, 'good'),
  ];
  const keys = [
    'users/1/files/1',
    'users/1/files/2',
    'users/1/files/3',
    'groups/5/deals/6/files/4',
    'users/1/files/6',
  ];
  const digest = (read: string[]) => (key: string) => {
    read.push(key);
    if (key === 'users/1/files/6') return Promise.reject(new BlobNotFoundError(key));
    return Promise.resolve(key === 'users/1/files/2' ? 'actual' : 'good');
  };

  it('reads each recorded file and reports those whose bytes changed', async () => {
    const read: string[] = [];
    const result = await reconcileStorage(
      storage(items, keys, HOUR_AGO, { digest: digest(read) }),
      { settleSeconds: 0, verifyDigests: true },
    );
    expect(result).toMatchObject({
      clean: false,
      records_without_objects: [{ pk: 'USER#1', sk: 'FILE#5', object_key: 'users/1/files/5' }],
      digest_mismatches: [
        {
          pk: 'USER#1',
          sk: 'FILE#2',
          object_key: 'users/1/files/2',
          recorded: 'recorded',
          actual: 'actual',
        },
      ],
      digests_verified: 2,
      digests_unrecorded: 1,
    });
    expect(read.sort()).toEqual([
      'groups/5/deals/6/files/4',
      'users/1/files/1',
      'users/1/files/2',
      'users/1/files/6',
    ]);
  });

  it('reports an object it cannot read, with the reason, and reads the others on', async () => {
    // A fault no stage makes on demand: a read refused for one object (on AWS, a policy or a
    // key the reader may not use).
    const refused = Object.assign(new Error('Access Denied'), { name: 'AccessDenied' });
    const result = await reconcileStorage(
      storage(items, keys, HOUR_AGO, {
        digest: (key) => (key === 'users/1/files/1' ? Promise.reject(refused) : digest([])(key)),
      }),
      { settleSeconds: 0, verifyDigests: true },
    );
    expect(result).toMatchObject({
      clean: false,
      digests_unreadable: [
        {
          pk: 'USER#1',
          sk: 'FILE#1',
          object_key: 'users/1/files/1',
          reason: 'AccessDenied: Access Denied',
        },
      ],
      digests_verified: 1,
      digest_mismatches: [expect.objectContaining({ object_key: 'users/1/files/2' })],
    });
  });

  it('reads no object without verifyDigests, and says nothing of digests', async () => {
    const read: string[] = [];
    const result = await reconcileStorage(
      storage(items, keys, HOUR_AGO, { digest: digest(read) }),
      { settleSeconds: 0 },
    );
    expect(read).toEqual([]);
    expect(result).not.toHaveProperty('digest_mismatches');
    expect(result).not.toHaveProperty('digests_verified');
    expect(result).not.toHaveProperty('digests_unrecorded');
    expect(result).not.toHaveProperty('digests_unreadable');
  });
});

describe('reconcileStorage: scan verdicts', () => {
  const file = (id: number, scan?: object) => ({
    PK: 'USER#1',
    SK: `FILE#${String(id)}`,
    ...(scan === undefined ? {} : { scan }),
  });
  const PENDING = { status: 'pending' };
  const CLEAN = { status: 'scanned', result: 'NO_THREATS_FOUND', at: HOUR_AGO.toISOString() };
  // Every object carries the scanner's tag: 1's record is pending, 2's has its verdict, 3's
  // record was pending when the table was read but its verdict landed since, 4 has no tag.
  const items = [file(1, PENDING), file(2, CLEAN), file(3, PENDING), file(4, PENDING)];
  const keys = ['users/1/files/1', 'users/1/files/2', 'users/1/files/3', 'users/1/files/4'];
  const scans = (read: string[]) => ({
    verdictOf: (key: string) => {
      read.push(key);
      return Promise.resolve(key === 'users/1/files/4' ? undefined : 'NO_THREATS_FOUND');
    },
    stillPending: (key: string) => Promise.resolve(key !== 'users/1/files/3'),
  });

  it('reports a record still pending whose object carries a verdict', async () => {
    const read: string[] = [];
    const result = await reconcileStorage(storage(items, keys, HOUR_AGO, { scans: scans(read) }), {
      settleSeconds: 0,
    });
    expect(result).toMatchObject({
      clean: false,
      verdicts_unrecorded: [
        { pk: 'USER#1', sk: 'FILE#1', object_key: 'users/1/files/1', verdict: 'NO_THREATS_FOUND' },
      ],
    });
    // Only the objects of records read as pending.
    expect(read.sort()).toEqual(['users/1/files/1', 'users/1/files/3', 'users/1/files/4']);
  });

  it('reports a tag it cannot read, with the reason, and reads the others on', async () => {
    const denied = {
      ...scans([]),
      verdictOf: (key: string) =>
        key === 'users/1/files/3'
          ? Promise.reject(Object.assign(new Error('Access Denied'), { name: 'AccessDenied' }))
          : scans([]).verdictOf(key),
    };
    const result = await reconcileStorage(storage(items, keys, HOUR_AGO, { scans: denied }), {
      settleSeconds: 0,
    });
    expect(result).toMatchObject({
      clean: false,
      verdicts_unrecorded: [
        { pk: 'USER#1', sk: 'FILE#1', object_key: 'users/1/files/1', verdict: 'NO_THREATS_FOUND' },
      ],
      verdicts_unreadable: [
        {
          pk: 'USER#1',
          sk: 'FILE#3',
          object_key: 'users/1/files/3',
          reason: 'AccessDenied: Access Denied',
        },
      ],
    });
  });

  it('reads no tag of an object younger than the settle time, nor without the port', async () => {
    const read: string[] = [];
    const young = await reconcileStorage(
      storage(items, keys, new Date(NOW.getTime() - 1000), { scans: scans(read) }),
      { settleSeconds: 60 },
    );
    expect(young).toMatchObject({ clean: true, verdicts_unrecorded: [] });
    expect(read).toEqual([]);
    const without = await reconcileStorage(storage(items, keys), { settleSeconds: 0 });
    expect(without).not.toHaveProperty('verdicts_unrecorded');
    expect(without).not.toHaveProperty('verdicts_unreadable');
  });
});
