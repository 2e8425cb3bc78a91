import type { Deal, Group, Membership, Role } from './group.ts';
import type { GroupRepository } from './group-repository.ts';
import { Conflict, NotFound } from '../domain/outcome.ts';

/** The operator's changes to groups, members and deals. Each refusal changes nothing. */
export interface GroupPorts {
  readonly groups: GroupRepository;
  readonly now?: () => Date;
}

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

/** Adds a member, or changes the role of one: the role given is the role they have after. */
export async function addMember(
  ports: GroupPorts,
  membership: Membership,
): Promise<Membership & { readonly previousRole: Role | null }> {
  const result = await ports.groups.setMember(membership);
  if (result === undefined) {
    throw new NotFound(`group ${membership.groupId} does not exist`);
  }
  return { ...membership, previousRole: result.previousRole };
}

export async function removeMember(
  ports: GroupPorts,
  groupId: number,
  userId: number,
): Promise<Membership> {
  const role = await ports.groups.removeMember(groupId, userId);
  if (role === undefined) {
    throw new NotFound(`user ${userId} is not a member of group ${groupId}`);
  }
  return { groupId, userId, role };
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
