import type { AccessEntry } from '../access-trail/access-entry.ts';
import type { Deal, Group, Membership, Role } from './group.ts';

/** Groups, their members and their deals, as the operator manages them. */
export interface GroupRepository {
  /** False when a group with this id exists already; it is left as it was. */
  createGroup(group: Group): Promise<boolean>;
  /** The user's role in the group, read strongly consistent; undefined for a non-member. */
  memberRole(groupId: number, userId: number): Promise<Role | undefined>;
  /**
   * Makes the user a member with this role, or changes the role of one who is, with its
   * access-trail entry in the same transaction: only while the group exists (`group-missing`)
   * and the membership is still as read, `previous` (null: none; `changed` otherwise).
   */
  setMember(
    membership: Membership,
    previous: Role | null,
    entry: AccessEntry,
  ): Promise<'set' | 'group-missing' | 'changed'>;
  /**
   * Removes the membership while it still has the role `recorded` says, in one transaction
   * with its access-trail entry: that role, or undefined when the user is no member with it
   * (nothing written).
   */
  removeMember(
    groupId: number,
    userId: number,
    recorded: { readonly role: Role; readonly entry: AccessEntry },
  ): Promise<Role | undefined>;
  /** `group-missing`/`deal-exists` refuse it; nothing is written then. */
  createDeal(deal: Deal): Promise<'created' | 'group-missing' | 'deal-exists'>;
  getDeal(groupId: number, dealId: number): Promise<Deal | undefined>;
  /** Every membership the user holds, in any group. Reads the whole table: operators only. */
  membershipsOf(userId: number): Promise<readonly Membership[]>;
  /** The group's deals, by id; undefined when there is no such group. */
  dealsOf(groupId: number): Promise<readonly Deal[] | undefined>;
}
