/**
 * Ports answered from memory, for the CPU bench: each answers at once with what it holds,
 * so the time a handler takes is its own. Only what the benched routes call is here; any
 * other method throws, so a route that starts calling one shows up at once. They are built
 * by the composition root, as every other set is, in place of its builders.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { userFileObjectKey } from '#shared/adapters/keys.ts';
import type { DealFile } from '#shared/deal-files/deal-file.ts';
import { type ListOptions, type ListPosition, type Page, positionOf } from '#shared/domain/page.ts';
import type { DealRef, Role } from '#shared/groups/group.ts';
import type { RealtimeKeySet } from '#shared/realtime/realtime-key-set.ts';
import type { SubmissionNotification } from '#shared/notifications/submission-notification.ts';
import type { UserFile } from '#shared/user-files/user-file.ts';
import { idempotency } from '#shared/wiring/builders/idempotency.ts';
import { composeAdapters } from '#shared/wiring/composition-root.ts';
import type { ServiceAdapters } from '#shared/wiring/service-adapters.ts';

/** `methods`, typed as the whole port: any method left out throws when called. */
function onlyThese<K extends keyof ServiceAdapters>(
  port: K,
  methods: Partial<ServiceAdapters[K]>,
): ServiceAdapters[K] {
  return new Proxy(methods, {
    get(target, name) {
      if (name in target) return target[name as keyof typeof target];
      // `then` is looked up by anything that awaits the object: not a call.
      if (typeof name !== 'string' || name === 'then') return undefined;
      return () => {
        throw new Error(`${port}.${name} is not answered from memory in the bench`);
      };
    },
  }) as ServiceAdapters[K];
}

export interface MemoryState {
  readonly userFiles: UserFile[];
  readonly dealFiles: DealFile[];
  /** `<groupId>` → the bench user's role there. */
  readonly roles: Map<number, Role>;
  /** `<groupId>:<dealId>` of every deal. */
  readonly deals: Set<string>;
  readonly keys: RealtimeKeySet;
}

/** Newest first, ids breaking ties, as the FilesByCreation index orders them. */
const newestFirst = (a: ListPosition, b: ListPosition): number =>
  a.createdAt === b.createdAt ? b.id - a.id : a.createdAt < b.createdAt ? 1 : -1;

function pageOf<T extends ListPosition>(files: T[], { page }: ListOptions = {}): Page<T> {
  const sorted = files.toSorted(newestFirst);
  if (page === undefined) return { items: sorted };
  const { after } = page;
  const start = after === undefined ? 0 : sorted.findIndex((file) => newestFirst(file, after) > 0);
  const from = start === -1 ? sorted.length : start;
  const items = sorted.slice(from, from + page.limit);
  const last = items.at(-1);
  return from + page.limit < sorted.length && last !== undefined
    ? { items, next: positionOf(last) }
    : { items };
}

export function memoryAdapters(state: MemoryState): ServiceAdapters {
  let nextId = 1_000_000;
  const notifications = new Map<string, SubmissionNotification>();
  const dealFile = (deal: DealRef, fileId: number) =>
    state.dealFiles.find(
      (file) => file.groupId === deal.groupId && file.dealId === deal.dealId && file.id === fileId,
    );
  return composeAdapters(
    // Used only for a request with an Idempotency-Key, which the bench never sends.
    { dynamodb: () => new DynamoDBClient({ region: 'eu-west-1' }), TABLE_NAME: 'bench' },
    {
      userFiles: () =>
        onlyThese('userFiles', {
          listByOwner: (userId, options) =>
            Promise.resolve(
              pageOf(
                state.userFiles.filter((file) => file.userId === userId),
                options,
              ),
            ),
          get: (userId, fileId) =>
            Promise.resolve(state.userFiles.find((f) => f.userId === userId && f.id === fileId)),
          getMany: (userId, fileIds) => {
            const wanted = new Set(fileIds);
            return Promise.resolve(
              state.userFiles.filter((file) => file.userId === userId && wanted.has(file.id)),
            );
          },
          // Kept nowhere: a bench of many uploads would otherwise grow without end.
          create: () => Promise.resolve(),
        }),
      dealFiles: () =>
        onlyThese('dealFiles', {
          access: (_userId, deal, fileId) =>
            Promise.resolve({
              role: state.deals.has(`${String(deal.groupId)}:${String(deal.dealId)}`)
                ? state.roles.get(deal.groupId)
                : undefined,
              file: fileId === undefined ? undefined : dealFile(deal, fileId),
            }),
          get: (deal, fileId) => Promise.resolve(dealFile(deal, fileId)),
          updateType: (_editorId, deal, fileId) =>
            Promise.resolve(dealFile(deal, fileId) !== undefined),
        }),
      dealRoles: () =>
        onlyThese('dealRoles', {
          rolesIn: (_userId, deals) =>
            Promise.resolve(
              deals.map((deal) =>
                state.deals.has(`${String(deal.groupId)}:${String(deal.dealId)}`)
                  ? state.roles.get(deal.groupId)
                  : undefined,
              ),
            ),
        }),
      directUploads: () => onlyThese('directUploads', {}),
      notifications: () =>
        onlyThese('notifications', {
          create: (notification) => {
            notifications.set(notification.notificationId, notification);
            return Promise.resolve();
          },
          get: (ref) => Promise.resolve(notifications.get(ref.notificationId)),
        }),
      fileIds: () => onlyThese('fileIds', { next: () => Promise.resolve(nextId++) }),
      // No benched route reads or writes a scan verdict.
      fileScans: () => onlyThese('fileScans', {}),
      blobs: () =>
        onlyThese('blobs', {
          // Kept nowhere, as `create` above: the bench only needs the call answered.
          put: () => Promise.resolve(),
          userFileKey: userFileObjectKey,
          locationOf: (key) => `s3://bench-bucket/${key}`,
        }),
      idempotency,
      notificationQueue: () => onlyThese('notificationQueue', { send: () => Promise.resolve() }),
      deadLetters: () => onlyThese('deadLetters', {}),
      realtimeKeys: () => onlyThese('realtimeKeys', { load: () => Promise.resolve(state.keys) }),
      chat: () => onlyThese('chat', {}),
      // Every call admitted: the bench measures the handler, not an allowance it runs out of.
      rateLimits: () =>
        onlyThese('rateLimits', { take: () => Promise.resolve({ admitted: true }) }),
    },
  );
}
