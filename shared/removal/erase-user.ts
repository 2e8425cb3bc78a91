import type { BlobStore, BlobVersion, BlobVersions } from '../blobs/blob-store.ts';
import type { Role } from '../groups/group.ts';
import type { GroupRepository } from '../groups/group-repository.ts';
import type { UserItem, UserItemKind, UserItems } from './user-items.ts';

/** What erasing a user removes (or, on a dry run, would remove). */
export interface Erasure {
  readonly userId: number;
  readonly dryRun: boolean;
  readonly files: number;
  readonly pendingUploads: number;
  readonly notifications: number;
  readonly idempotencyRecords: number;
  /** Items in the user's partition of no kind above (none are written today). */
  readonly otherItems: number;
  /** Every version and delete marker under the user's object prefixes. */
  readonly objectVersions: number;
  readonly memberships: readonly { readonly groupId: number; readonly role: Role }[];
}

export interface ErasePorts {
  readonly userItems: UserItems;
  readonly groups: Pick<GroupRepository, 'membershipsOf' | 'removeMember'>;
  readonly blobs: BlobVersions & Pick<BlobStore, 'userKeyPrefixes'>;
}

function countKinds(items: readonly UserItem[]) {
  const count = (kind: UserItemKind) => items.filter((item) => item.kind === kind).length;
  return {
    files: count('file'),
    pendingUploads: count('pending-upload'),
    notifications: count('notification'),
    idempotencyRecords: count('idempotency-record'),
    otherItems: count('other'),
  };
}

/**
 * Removes everything of a user's (an erasure request): their memberships first, so their
 * access to groups goes; then every item their id names (files, pending uploads,
 * notifications, idempotency records); then every version of every object under their
 * prefixes, so no record ever names bytes that are gone. Deal files they added stay: they
 * belong to their deals. Each step removes what it finds, so running it again finishes an
 * erasure that failed halfway, and finds nothing after one that succeeded.
 */
export async function eraseUser(
  ports: ErasePorts,
  userId: number,
  options: { readonly dryRun: boolean },
): Promise<Erasure> {
  const memberships = await ports.groups.membershipsOf(userId);
  const items = await ports.userItems.itemsOf(userId);
  const versions: BlobVersion[] = [];
  for (const prefix of ports.blobs.userKeyPrefixes(userId)) {
    for await (const page of ports.blobs.versionsUnder(prefix)) versions.push(...page);
  }
  if (!options.dryRun) {
    for (const { groupId } of memberships) await ports.groups.removeMember(groupId, userId);
    await ports.userItems.deleteItems(items);
    await ports.blobs.deleteVersions(versions);
  }
  return {
    userId,
    dryRun: options.dryRun,
    ...countKinds(items),
    objectVersions: versions.length,
    memberships: memberships.map(({ groupId, role }) => ({ groupId, role })),
  };
}
