import type { DealRef, Role } from './group.ts';

/** A user's role in many deals at once, read together. */
export interface DealRoleReader {
  /**
   * The user's role in each deal, in order: undefined unless they are a member of the group
   * and the deal is in it. One read, however many deals.
   */
  rolesIn(userId: number, deals: readonly DealRef[]): Promise<(Role | undefined)[]>;
}
