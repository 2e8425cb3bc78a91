import { type EntryStamp, newAccessEntry, OPERATOR } from '../access-trail/access-entry.ts';
import type { Deal, Group, Membership, Role } from './group.ts';
import type { GroupRepository } from './group-repository.ts';
import { Conflict, NotFound } from '../domain/outcome.ts';

/** The operator's changes to groups, members and deals. Each refusal changes nothing. */
export interface GroupPorts extends EntryStamp {
  readonly groups: GroupRepository;
}

/** A membership change meets another at once only by an operator's race: a few tries. */
const ATTEMPTS = 3;

const timestamp = (ports: GroupPorts) => (ports.now?.() ?? new Date()).toISOString();

export async function addGroup(
  ports: GroupPorts,
  group: { readonly id: number; readonly name: string },
): Promise<Group> {
  const created: Group = { ...group, createdAt: timestamp(ports) };
  if (!(await ports.groups.createGroup(created))) {
    throw new Conflict(`group ${group.id} already exists`);
  }
  return created;
}

/**
 * Adds a member, or changes the role of one: the role given is the role they have after. The
 * change lands with its entry in the group's trail, `member.add` or `member.change_role`
 * (with the role before), by the operator; a role set again changes nothing and records none.
 */
export async function addMember(
  ports: GroupPorts,
  membership: Membership,
): Promise<Membership & { readonly previousRole: Role | null }> {
  const { groupId, userId, role } = membership;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const previous = (await ports.groups.memberRole(groupId, userId)) ?? null;
    if (previous === role) return { ...membership, previousRole: previous };
    const entry = newAccessEntry(
      previous === null
        ? { action: 'member.add', outcome: 'allowed', groupId, memberId: userId, role }
        : {
            action: 'member.change_role',
            outcome: 'allowed',
            groupId,
            memberId: userId,
            role,
            previousRole: previous,
          },
      OPERATOR,
      ports,
    );
    const result = await ports.groups.setMember(membership, previous, entry);
    if (result === 'group-missing') throw new NotFound(`group ${groupId} does not exist`);
    if (result === 'set') return { ...membership, previousRole: previous };
  }
  throw new Conflict(`the membership of user ${userId} in group ${groupId} kept changing`);
}

/** Takes a member out of a group, with its `member.remove` entry (and the role they had). */
export async function removeMember(
  ports: GroupPorts,
  groupId: number,
  userId: number,
): Promise<Membership> {
  const role = await removeMembership(ports, groupId, userId);
  if (role === undefined) {
    throw new NotFound(`user ${userId} is not a member of group ${groupId}`);
  }
  return { groupId, userId, role };
}

/**
 * The operator takes the user out of the group, if they are a member: the role they had, or
 * undefined when they were none. The removal lands with its `member.remove` entry (the role
 * before) in one transaction, and only while the membership is as read.
 */
export async function removeMembership(
  ports: EntryStamp & { readonly groups: Pick<GroupRepository, 'memberRole' | 'removeMember'> },
  groupId: number,
  userId: number,
): Promise<Role | undefined> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const role = await ports.groups.memberRole(groupId, userId);
    if (role === undefined) return undefined;
    const entry = newAccessEntry(
      {
        action: 'member.remove',
        outcome: 'allowed',
        groupId,
        memberId: userId,
        previousRole: role,
      },
      OPERATOR,
      ports,
    );
    if ((await ports.groups.removeMember(groupId, userId, { role, entry })) !== undefined) {
      return role;
    }
  }
  throw new Conflict(`the membership of user ${userId} in group ${groupId} kept changing`);
}

export async function addDeal(
  ports: GroupPorts,
  deal: { readonly groupId: number; readonly id: number; readonly name: string },
): Promise<Deal> {
  const created: Deal = { ...deal, createdAt: timestamp(ports) };
  const outcome = await ports.groups.createDeal(created);
  if (outcome === 'group-missing') {
    throw new NotFound(`group ${deal.groupId} does not exist`);
  }
  if (outcome === 'deal-exists') {
    throw new Conflict(`deal ${deal.id} already exists in group ${deal.groupId}`);
  }
  return created;
}
