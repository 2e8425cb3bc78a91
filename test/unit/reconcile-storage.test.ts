import { describe, expect, it } from 'vitest';
import { storedItem } from '#shared/adapters/aws-reconcile-storage.ts';
import { reconcileStorage, type StoragePorts } from '#shared/reconcile/reconcile-storage.ts';

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

function storage(
  items: Record<string, unknown>[],
  keys: string[],
  modified = HOUR_AGO,
): StoragePorts {
  return {
    // As the adapter reads them: the table's items are its layout, not the use case's.
    items: () => toAsync([items.map(storedItem)]),
    objects: () => toAsync([keys.map((key) => ({ key, lastModified: modified }))]),
    now: () => NOW,
  };
}

const pending = (userId: number, id: number, expiresAt: Date) => ({
  PK: `USER#${String(userId)}`,
  SK: `UPLOAD#${String(id)}`,
  status: 'pending',
  expiration: Math.ceil(expiresAt.getTime() / 1000),
});

describe('reconcileStorage', () => {
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

  it('calls the object an orphan once its pending record has expired', async () => {
    const result = await reconcileStorage(
      storage([pending(2, 23, new Date(NOW.getTime() - 60_000))], ['users/2/files/23']),
      { settleSeconds: 0 },
    );
    expect(result).toMatchObject({
      clean: false,
      objects_without_records: ['users/2/files/23'],
      uploads_in_flight: 0,
    });
  });

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
    expect(result).toMatchObject({ clean: true, checked: { items: 3, objects: 1 } });
  });
});
