import { describe, expect, it } from 'vitest';
import * as deployed from '#shared/wiring/deployed-adapters.ts';
import type { ServiceAdapters } from '#shared/wiring/service-adapters.ts';

/** Compile-time: a builder for every adapter, building that adapter's type. */
const builders = deployed satisfies {
  readonly [K in keyof ServiceAdapters]: (env: never) => ServiceAdapters[K];
};

describe('deployed adapters', () => {
  it('has a builder for every adapter a handler may take, and nothing else', () => {
    expect(Object.keys(builders).sort()).toEqual(
      [
        'blobs',
        'chat',
        'dealFiles',
        'dealRoles',
        'deadLetters',
        'directUploads',
        'fileIds',
        'idempotency',
        'notificationQueue',
        'notifications',
        'rateLimits',
        'realtimeKeys',
        'userFiles',
      ].sort(),
    );
  });
});
