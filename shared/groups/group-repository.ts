import type { Deal, Group, Membership, Role } from './group.ts';

/** Groups, their members and their deals, as the operator manages them. */
export interface GroupRepository {
  /** False when a group with this id exists already; it is left as it was. */
  createGroup(group: Group): Promise<boolean>;
  /**
   * Makes the user a member with this role, or changes the role of one who is. Undefined when
   * the group does not exist; otherwise the previous role (null for a new member).
   */
  setMember(membership: Membership): Promise<{ readonly previousRole: Role | null } | undefined>;
  /** The role the member had, or undefined when the user was not a member. */
  removeMember(groupId: number, userId: number): Promise<Role | undefined>;
  /** `group-missing`/`deal-exists` refuse it; nothing is written then. */
  createDeal(deal: Deal): Promise<'created' | 'group-missing' | 'deal-exists'>;
  getDeal(groupId: number, dealId: number): Promise<Deal | undefined>;
  /** Every membership the user holds, in any group. Reads the whole table: operators only. */
  membershipsOf(userId: number): Promise<readonly Membership[]>;
}
