import { describe, expect, it } from 'vitest';
import { userFiles } from '#shared/user-files/adapters/dynamo-user-file-repository.ts';
import { composeAdapters } from '#shared/wiring/composition-root.ts';
import { SERVICE_ADAPTER_BUILDERS } from '#shared/wiring/service-adapter-builders.ts';

describe('the composition root', () => {
  it('has a builder for every adapter a handler may take, and nothing else', () => {
    expect(Object.keys(SERVICE_ADAPTER_BUILDERS).sort()).toEqual(
      [
        'blobs',
        'chat',
        'dealFiles',
        'dealRoles',
        'deadLetters',
        'directUploads',
        'fileIds',
        'fileScans',
        'idempotency',
        'notificationQueue',
        'notifications',
        'rateLimits',
        'realtimeKeys',
        'usage',
        'userFiles',
        'userItems',
      ].sort(),
    );
  });

  it('builds an adapter when it is first read, once, and no other', () => {
    const built: string[] = [];
    const adapters = composeAdapters(
      { TABLE_NAME: 'table' },
      {
        named: ({ TABLE_NAME }: { TABLE_NAME: string }) => {
          built.push(TABLE_NAME);
          return { TABLE_NAME };
        },
        unread: () => {
          built.push('unread');
          return {};
        },
      },
    );
    expect(built).toEqual([]);
    const { named } = adapters;
    expect(adapters.named).toBe(named);
    expect(built).toEqual(['table']);
  });

  it('builds again on the next read after a build that threw', () => {
    let tries = 0;
    const adapters = composeAdapters(
      {},
      {
        flaky: () => {
          tries++;
          if (tries === 1) throw new Error('first try');
          return { tries };
        },
      },
    );
    expect(() => adapters.flaky).toThrow('first try');
    expect(adapters.flaky).toEqual({ tries: 2 });
  });

  it('does not compile when the sources lack what a builder needs', () => {
    // @ts-expect-error: userFiles needs a document client and TABLE_NAME.
    const adapters = composeAdapters({ BUCKET_NAME: 'bucket' }, { userFiles });
    expect(Object.keys(adapters)).toEqual(['userFiles']);
  });
});
