/** A group of people who work on deals together. Who may do what is a membership's role. */
export interface Group {
  readonly id: number;
  readonly name: string;
  readonly createdAt: string;
}

/** Viewers read a group's deals; editors read and change them. */
export const ROLES = ['viewer', 'editor'] as const;
export type Role = (typeof ROLES)[number];

export const isRole = (value: unknown): value is Role => ROLES.includes(value as Role);

export interface Membership {
  readonly groupId: number;
  readonly userId: number;
  readonly role: Role;
}

/** A deal belongs to exactly one group; its id is unique within the group. */
export interface Deal {
  readonly groupId: number;
  readonly id: number;
  readonly name: string;
  readonly createdAt: string;
}

/** A deal named by the ids a path or a room id carries. */
export interface DealRef {
  readonly groupId: number;
  readonly dealId: number;
}
