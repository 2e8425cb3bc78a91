import type { EntryStamp } from '../access-trail/access-entry.ts';
import type { BlobStore, BlobVersion, BlobVersions } from '../blobs/blob-store.ts';
import type { Role } from '../groups/group.ts';
import type { GroupRepository } from '../groups/group-repository.ts';
import { removeMembership } from '../groups/manage-groups.ts';
import type { UserItem, UserItemKind, UserItems } from './user-items.ts';

/** What erasing a user removes (or, on a dry run, would remove). */
export interface Erasure {
  readonly userId: number;
  readonly dryRun: boolean;
  readonly files: number;
  readonly pendingUploads: number;
  readonly notifications: number;
  readonly idempotencyRecords: number;
  /** Items in their partition of no kind above: their notify allowance, their last refusals. */
  readonly otherItems: number;
  /** Every version and delete marker under the user's object prefixes. */
  readonly objectVersions: number;
  readonly memberships: readonly { readonly groupId: number; readonly role: Role }[];
}

export interface ErasePorts extends EntryStamp {
  readonly userItems: UserItems;
  readonly groups: Pick<GroupRepository, 'membershipsOf' | 'memberRole' | 'removeMember'>;
  readonly blobs: BlobVersions & Pick<BlobStore, 'userKeyPrefixes'>;
  readonly sleep?: (ms: number) => Promise<void>;
}

export interface EraseOptions {
  readonly dryRun: boolean;
  /**
   * How long to wait, after the first deletes, for the user's requests still running to end
   * before the last pass: longer than any function that writes their items may run.
   */
  readonly settleMs: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Found {
  readonly items: readonly UserItem[];
  readonly versions: readonly BlobVersion[];
}

async function findAll(ports: ErasePorts, userId: number): Promise<Found> {
  const items = await ports.userItems.itemsOf(userId);
  const versions: BlobVersion[] = [];
  for (const prefix of ports.blobs.userKeyPrefixes(userId)) {
    for await (const page of ports.blobs.versionsUnder(prefix)) versions.push(...page);
  }
  return { items, versions };
}

/** Items first: a record never outlives its bytes. */
async function removeFound(ports: ErasePorts, found: Found): Promise<void> {
  await ports.userItems.deleteItems(found.items);
  await ports.blobs.deleteVersions(found.versions);
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
 * Removes everything of a user's (an erasure request). First the erasure marker, kept for good:
 * from then on no write creates an item of theirs (a file, a pending upload, a notification),
 * so the records listed next are all there will ever be, and none can land behind the
 * deletes naming bytes that are gone. Then their memberships, so their access to groups goes,
 * each removal in one transaction with its `member.remove` entry in the group's trail (by the
 * operator: the trail keeps the fund's record, and the erasure touches none of its entries);
 * then every item their id names; then every version of every object under their prefixes.
 * Every other item of theirs (a notify allowance, an idempotency record, their refusals) is
 * made only in a transaction that checks the marker too, and changed only while it is there,
 * so none comes back behind the deletes. Requests of theirs that started before the marker
 * and still run may still store bytes whose record the marker then refuses: once they have
 * had time to end (`settleMs`), the listing and deletes run once more. Requests that start
 * later write nothing that stays: their files are refused, and the bytes an upload stored
 * first go again with its refusal (the last pass may take them first, which is as well).
 * Deal files they added stay: they belong to their deals. Each step removes what it finds, so
 * running it again finishes an erasure that failed halfway, and finds nothing after one that
 * succeeded.
 */
export async function eraseUser(
  ports: ErasePorts,
  userId: number,
  options: EraseOptions,
): Promise<Erasure> {
  if (!options.dryRun) await ports.userItems.markErased(userId, ports.now?.() ?? new Date());
  const memberships = await ports.groups.membershipsOf(userId);
  const found = await findAll(ports, userId);
  const removed = { items: [...found.items], versions: [...found.versions] };
  if (!options.dryRun) {
    for (const { groupId } of memberships) await removeMembership(ports, groupId, userId);
    await removeFound(ports, found);
    if (options.settleMs > 0) await (ports.sleep ?? sleep)(options.settleMs);
    const late = await findAll(ports, userId);
    await removeFound(ports, late);
    removed.items.push(...late.items);
    removed.versions.push(...late.versions);
  }
  return {
    userId,
    dryRun: options.dryRun,
    ...countKinds(removed.items),
    objectVersions: removed.versions.length,
    memberships: memberships.map(({ groupId, role }) => ({ groupId, role })),
  };
}
