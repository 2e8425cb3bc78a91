/**
 * Ports answered from memory, for the CPU bench: each answers at once with what it holds,
 * so the time a handler takes is its own. Only what the benched routes call is here, and the
 * writes that change a user's usage (`memoryStorage`); any other method, and every method of
 * a port no benched route takes, throws, so a route that starts calling one shows up at once.
 * They are built by the composition root, as every other set is, in place of its builders.
 */
import { createHash } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { userFileObjectKey } from '#shared/storage/keys.ts';
import { BlobChangedError, BlobNotFoundError } from '#shared/blobs/blob-store.ts';
import type { DealFile } from '#shared/deal-files/deal-file.ts';
import { completableUntil, type DirectUpload } from '#shared/direct-uploads/direct-upload.ts';
import { type ListOptions, type ListPosition, type Page, positionOf } from '#shared/domain/page.ts';
import type { DealRef, Role } from '#shared/groups/group.ts';
import type { RealtimeKeySet } from '#shared/realtime/realtime-key-set.ts';
import type { SubmissionNotification } from '#shared/notifications/submission-notification.ts';
import { oneFile, quotaRefusal, type Storage, type Usage } from '#shared/usage/usage.ts';
import type { UserFile } from '#shared/user-files/user-file.ts';
import { idempotency } from '#shared/storage/idempotency-store.ts';
import { composeAdapters } from '#shared/wiring/composition-root.ts';
import { SERVICE_ADAPTER_BUILDERS } from '#shared/wiring/service-adapter-builders.ts';
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

/** A builder for each port of the set: a port named wrong, or answered as another, fails. */
type PortBuilders = {
  readonly [K in keyof ServiceAdapters]: (sources: never) => ServiceAdapters[K];
};

/**
 * Every port of the set, by the set's own keys, answering nothing: a new port needs no line
 * here until a benched route calls it.
 */
const unanswered = () =>
  Object.fromEntries(
    (Object.keys(SERVICE_ADAPTER_BUILDERS) as (keyof ServiceAdapters)[]).map((port) => [
      port,
      () => onlyThese(port, {}),
    ]),
  ) as { readonly [K in keyof ServiceAdapters]: () => ServiceAdapters[K] };

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

const keyOf = (userId: number, id: number) => `${String(userId)}:${String(id)}`;

const plus = (a: Storage, b: Storage, sign: 1 | -1 = 1): Storage => ({
  files: a.files + sign * b.files,
  bytes: a.bytes + sign * b.bytes,
});

/**
 * Files recorded and direct uploads started in the bench, and each user's usage, counted as
 * the DynamoDB adapters count it: from the user's items the first time it is needed, then
 * changed by every write that adds or removes what it counts, and held to the limits a write
 * gives with the domain's own refusal (`quotaRefusal`). The records the bench starts with
 * (`MemoryState.userFiles`) are listed; those it adds are kept apart, so that the listing
 * case lists the same 1,000 files however many uploads ran beside it.
 */
function memoryStorage(state: MemoryState) {
  const added = new Map<string, UserFile>();
  const listed = new Map(state.userFiles.map((file) => [keyOf(file.userId, file.id), file]));
  const uploads = new Map<string, DirectUpload>();
  const usages = new Map<number, Usage>();

  const filesOf = (userId: number) => [
    ...state.userFiles.filter((file) => file.userId === userId),
    ...[...added.values()].filter((file) => file.userId === userId),
  ];
  const uploadsOf = (userId: number) =>
    [...uploads.values()].filter((upload) => upload.userId === userId);
  const counted = (userId: number): Usage => {
    const used = filesOf(userId).reduce<Storage>((sum, file) => plus(sum, oneFile(file.filesize)), {
      files: 0,
      bytes: 0,
    });
    const reserved = uploadsOf(userId)
      .filter((upload) => upload.status !== 'rejected')
      .reduce<Storage>((sum, upload) => plus(sum, oneFile(upload.declaredSize)), {
        files: 0,
        bytes: 0,
      });
    return { used, reserved };
  };
  const usageOf = (userId: number): Usage => {
    let usage = usages.get(userId);
    if (usage === undefined) {
      usage = counted(userId);
      usages.set(userId, usage);
    }
    return usage;
  };
  const change = (userId: number, used: Storage, reserved: Storage, sign: 1 | -1) => {
    const usage = usageOf(userId);
    usages.set(userId, {
      used: plus(usage.used, used, sign),
      reserved: plus(usage.reserved, reserved, sign),
    });
  };
  const none: Storage = { files: 0, bytes: 0 };
  const fileOf = (userId: number, fileId: number): UserFile | undefined =>
    added.get(keyOf(userId, fileId)) ?? listed.get(keyOf(userId, fileId));
  /** Ends an upload, giving back its reservation unless a refusal already did. */
  const end = (upload: DirectUpload) => {
    uploads.delete(keyOf(upload.userId, upload.id));
    if (upload.status !== 'rejected') {
      change(upload.userId, none, oneFile(upload.declaredSize), -1);
    }
  };

  const userFiles: Partial<ServiceAdapters['userFiles']> = {
    create: (file, limits) => {
      if (fileOf(file.userId, file.id) !== undefined) {
        return Promise.reject(new Error(`bench: file ${String(file.id)} is already recorded`));
      }
      const refusal =
        limits === undefined
          ? undefined
          : quotaRefusal(usageOf(file.userId), limits, oneFile(file.filesize));
      if (refusal !== undefined) return Promise.reject(refusal);
      added.set(keyOf(file.userId, file.id), file);
      change(file.userId, oneFile(file.filesize), none, 1);
      return Promise.resolve();
    },
    delete: (file) => {
      const key = keyOf(file.userId, file.id);
      const recorded = fileOf(file.userId, file.id);
      if (recorded === undefined) return Promise.resolve(false);
      if (!added.delete(key)) {
        listed.delete(key);
        state.userFiles.splice(state.userFiles.indexOf(recorded), 1);
      }
      change(file.userId, oneFile(recorded.filesize), none, -1);
      return Promise.resolve(true);
    },
  };

  const directUploads: Partial<ServiceAdapters['directUploads']> = {
    start: (upload, limits) => {
      const key = keyOf(upload.userId, upload.id);
      if (uploads.has(key) || fileOf(upload.userId, upload.id) !== undefined) {
        return Promise.reject(new Error(`bench: upload ${String(upload.id)} is already taken`));
      }
      const asked = oneFile(upload.declaredSize);
      const refusal = quotaRefusal(usageOf(upload.userId), limits, asked);
      if (refusal !== undefined) return Promise.reject(refusal);
      uploads.set(key, upload);
      change(upload.userId, none, asked, 1);
      return Promise.resolve();
    },
    find: (userId, fileId) => Promise.resolve(uploads.get(keyOf(userId, fileId))),
    claim: (userId, fileId, claim, now) => {
      const upload = uploads.get(keyOf(userId, fileId));
      const lapsed =
        upload?.status === 'completing' && (upload.claim?.until ?? '') < now.toISOString();
      if (upload === undefined || !(upload.status === 'pending' || lapsed)) {
        return Promise.resolve(false);
      }
      uploads.set(keyOf(userId, fileId), { ...upload, status: 'completing', claim });
      return Promise.resolve(true);
    },
    release: (userId, fileId, token) => {
      const upload = uploads.get(keyOf(userId, fileId));
      if (upload?.status !== 'completing' || upload.claim?.token !== token) {
        return Promise.resolve(false);
      }
      const { claim: _released, ...pending } = upload;
      uploads.set(keyOf(userId, fileId), { ...pending, status: 'pending' });
      return Promise.resolve(true);
    },
    reject: (upload, reason, token) => {
      const held = uploads.get(keyOf(upload.userId, upload.id));
      if (held?.status !== 'completing' || held.claim?.token !== token) {
        return Promise.resolve(false);
      }
      const { claim: _ended, ...rest } = held;
      uploads.set(keyOf(upload.userId, upload.id), {
        ...rest,
        status: 'rejected',
        rejection: reason,
      });
      change(upload.userId, none, oneFile(held.declaredSize), -1);
      return Promise.resolve(true);
    },
    cancel: (upload, token) => {
      const held = uploads.get(keyOf(upload.userId, upload.id));
      const ours = held?.status === 'completing' && held.claim?.token === token;
      if (held === undefined || !(ours || held.status === 'rejected')) {
        return Promise.resolve(false);
      }
      end(held);
      return Promise.resolve(true);
    },
    complete: (file, upload, token) => {
      const held = uploads.get(keyOf(upload.userId, upload.id));
      if (
        held?.status !== 'completing' ||
        held.claim?.token !== token ||
        fileOf(file.userId, file.id) !== undefined
      ) {
        return Promise.resolve('conflict' as const);
      }
      uploads.delete(keyOf(upload.userId, upload.id));
      added.set(keyOf(file.userId, file.id), file);
      // The reservation becomes the file, at the size recorded.
      change(file.userId, none, oneFile(held.declaredSize), -1);
      change(file.userId, oneFile(file.filesize), none, 1);
      return Promise.resolve('completed' as const);
    },
  };

  const usage: ServiceAdapters['usage'] = {
    read: (userId) => Promise.resolve(usageOf(userId)),
    releaseExpired: (userId, now) => {
      const at = now.toISOString();
      const expired = uploadsOf(userId).filter(
        (upload) =>
          upload.status !== 'rejected' &&
          !(upload.status === 'completing' && (upload.claim?.until ?? '') >= at) &&
          completableUntil(upload) <= at,
      );
      expired.forEach(end);
      return Promise.resolve(expired.length);
    },
    recount: (userId) => {
      const before = usages.get(userId);
      const after = counted(userId);
      usages.set(userId, after);
      return Promise.resolve({ before, after });
    },
  };

  return { userFiles, directUploads, usage, fileOf };
}

/**
 * Bytes answered from memory: each put keeps its SHA-256 alone (the one the caller sent, or
 * worked out here when it sent none), never the bytes, so a bench of many uploads stays
 * small; `digest` answers it.
 */
function memoryBlobs(): Partial<ServiceAdapters['blobs']> {
  const digests = new Map<string, { sha256: string; versionId: string }>();
  let versions = 0;
  return {
    put: (key, content, { sha256 }) => {
      const digest = sha256 ?? createHash('sha256').update(content).digest('base64');
      digests.set(key, { sha256: digest, versionId: String((versions += 1)) });
      return Promise.resolve();
    },
    digest: (key, { versionId } = {}) => {
      const stored = digests.get(key);
      if (stored === undefined) return Promise.reject(new BlobNotFoundError(key));
      if (versionId !== undefined && versionId !== stored.versionId) {
        return Promise.reject(new BlobChangedError(key));
      }
      return Promise.resolve(stored.sha256);
    },
    delete: (key) => {
      digests.delete(key);
      return Promise.resolve();
    },
    userFileKey: userFileObjectKey,
    locationOf: (key) => `s3://bench-bucket/${key}`,
  };
}

export function memoryAdapters(state: MemoryState): ServiceAdapters {
  const storage = memoryStorage(state);
  let nextId = 1_000_000;
  const notifications = new Map<string, SubmissionNotification>();
  const dealFile = (deal: DealRef, fileId: number) =>
    state.dealFiles.find(
      (file) => file.groupId === deal.groupId && file.dealId === deal.dealId && file.id === fileId,
    );
  return composeAdapters(
    // Used only for a request with an Idempotency-Key, which the bench never sends.
    {
      dynamodb: () => new DynamoDBClient({ region: 'eu-west-1' }),
      documents: () => DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' })),
      TABLE_NAME: 'bench',
    },
    {
      ...unanswered(),
      userFiles: () =>
        onlyThese('userFiles', {
          listByOwner: (userId, options) =>
            Promise.resolve(
              pageOf(
                state.userFiles.filter((file) => file.userId === userId),
                options,
              ),
            ),
          get: (userId, fileId) => Promise.resolve(storage.fileOf(userId, fileId)),
          getMany: (userId, fileIds) => {
            const wanted = new Set(fileIds);
            return Promise.resolve(
              state.userFiles.filter((file) => file.userId === userId && wanted.has(file.id)),
            );
          },
          ...storage.userFiles,
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
      directUploads: () => onlyThese('directUploads', storage.directUploads),
      notifications: () =>
        onlyThese('notifications', {
          create: (notification) => {
            notifications.set(notification.notificationId, notification);
            return Promise.resolve();
          },
          get: (ref) => Promise.resolve(notifications.get(ref.notificationId)),
        }),
      fileIds: () => onlyThese('fileIds', { next: () => Promise.resolve(nextId++) }),
      blobs: () => onlyThese('blobs', memoryBlobs()),
      idempotency,
      notificationQueue: () => onlyThese('notificationQueue', { send: () => Promise.resolve() }),
      realtimeKeys: () => onlyThese('realtimeKeys', { load: () => Promise.resolve(state.keys) }),
      // Every call admitted: the bench measures the handler, not an allowance it runs out of.
      rateLimits: () =>
        onlyThese('rateLimits', { take: () => Promise.resolve({ admitted: true }) }),
      usage: () => onlyThese('usage', storage.usage),
      // No benched user was erased.
      userItems: () => onlyThese('userItems', { isErased: () => Promise.resolve(false) }),
    } satisfies PortBuilders,
  );
}
