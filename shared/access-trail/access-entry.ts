import { createHash, randomBytes } from 'node:crypto';

/**
 * The access trail's entries: one for every access and change, written by the code that
 * decides it (docs/architecture.md, "The access trail").
 */

/** What an entry records, dotted: the thing acted on, then the act. */
export const ACCESS_ACTIONS = [
  'user_file.download',
  'user_file.rename',
  'user_file.archive',
  'user_file.unarchive',
  'user_file.delete',
  'deal_file.download',
  /** Refused only: a member's listing or read of a record hands out no bytes, and is not recorded. */
  'deal_file.list',
  'deal_file.read',
  'deal_file.add',
  'deal_file.update',
  'deal_file.delete',
  'realtime_token.issue',
  'member.add',
  'member.change_role',
  'member.remove',
] as const;
export type AccessAction = (typeof ACCESS_ACTIONS)[number];

export const ACCESS_OUTCOMES = ['allowed', 'refused'] as const;
type AccessOutcome = (typeof ACCESS_OUTCOMES)[number];

/** A user's request, as its handler saw it: who, and which request (API Gateway's own id). */
export interface Requester {
  readonly userId: number;
  /** API Gateway's `requestContext.requestId`, as `apigw-requestid` shows it. */
  readonly requestId: string;
  readonly sourceIp: string;
  /** Absent when the request carried no `user-agent`. */
  readonly userAgent?: string;
}

/** The operator, at the CLI: no user, no request. */
export const OPERATOR = 'operator';

/** Who acts: a user through a request, or the operator. */
export type Actor = Requester | typeof OPERATOR;

/**
 * Whose trail an entry is in: a deal's (anything about a deal or its room), a group's
 * (membership changes) or a user's (their own files).
 */
export type TrailScope =
  | { readonly kind: 'deal'; readonly groupId: number; readonly dealId: number }
  | { readonly kind: 'group'; readonly groupId: number }
  | { readonly kind: 'user'; readonly userId: number };

/**
 * A member's role, as the groups feature names them (its `Role`, which imports this module's
 * entries for its own writes; the item schema reads roles by its `ROLES`, so a new role fails
 * to compile there).
 */
type MemberRole = 'viewer' | 'editor';

/** What an entry says, beside who acted and when. Fields that do not apply are absent. */
export interface EntryFacts {
  readonly action: AccessAction;
  readonly outcome: AccessOutcome;
  /** The status the caller was answered with: refusals only. */
  readonly status?: number;
  readonly groupId?: number;
  readonly dealId?: number;
  readonly fileId?: number;
  /** user_file.* by the operator: the file's owner, whose trail the entry is in. */
  readonly ownerId?: number;
  readonly roomId?: string;
  /** deal_file.add: the user file the deal file was copied from, and its owner. */
  readonly sourceFileId?: number;
  readonly sourceUserId?: number;
  /** member.*: the member whose membership changed. */
  readonly memberId?: number;
  /** member.add and member.change_role: the role after the change. */
  readonly role?: MemberRole;
  /** member.change_role and member.remove: the role before it. */
  readonly previousRole?: MemberRole;
}

export interface AccessEntry extends EntryFacts {
  /** When, ISO 8601 UTC with milliseconds (fixed width: text order is time order). */
  readonly at: string;
  /** A random 128-bit id, 32 hex digits: the entry's identity. */
  readonly id: string;
  readonly actor: 'user' | 'operator';
  /** The acting user; absent for the operator. */
  readonly userId?: number;
  readonly requestId?: string;
  readonly sourceIp?: string;
  readonly userAgent?: string;
}

/** Where an entry's time and id come from: injected in tests, the clock and crypto otherwise. */
export interface EntryStamp {
  readonly now?: () => Date;
  readonly newEntryId?: () => string;
}

const randomEntryId = (): string => randomBytes(16).toString('hex');

/** An entry of these facts, by this actor, stamped now with a new id. */
export function newAccessEntry(
  facts: EntryFacts,
  actor: Actor,
  stamp: EntryStamp = {},
): AccessEntry {
  const at = (stamp.now?.() ?? new Date()).toISOString();
  const id = (stamp.newEntryId ?? randomEntryId)();
  if (actor === OPERATOR) return { ...facts, at, id, actor: 'operator' };
  return {
    ...facts,
    at,
    id,
    actor: 'user',
    userId: actor.userId,
    requestId: actor.requestId,
    sourceIp: actor.sourceIp,
    ...(actor.userAgent === undefined ? {} : { userAgent: actor.userAgent }),
  };
}

const USER_FILE_ACTIONS = new Set<AccessAction>([
  'user_file.download',
  'user_file.rename',
  'user_file.archive',
  'user_file.unarchive',
  'user_file.delete',
]);
const MEMBER_ACTIONS = new Set<AccessAction>(['member.add', 'member.change_role', 'member.remove']);

/**
 * The trail an entry belongs in, from its action: a user file's own actions in its owner's
 * (the acting user, or the owner the operator acted for), membership changes in the group's,
 * everything else (deal files, room tokens) in the deal's. An entry without the ids its
 * scope needs is our fault.
 */
export function scopeOf(entry: AccessEntry): TrailScope {
  if (USER_FILE_ACTIONS.has(entry.action)) {
    const owner = entry.ownerId ?? entry.userId;
    if (owner === undefined) throw new Error(`${entry.action} needs the owner's user id`);
    return { kind: 'user', userId: owner };
  }
  if (entry.groupId === undefined) throw new Error(`${entry.action} needs a group id`);
  if (MEMBER_ACTIONS.has(entry.action)) return { kind: 'group', groupId: entry.groupId };
  if (entry.dealId === undefined) throw new Error(`${entry.action} needs a deal id`);
  return { kind: 'deal', groupId: entry.groupId, dealId: entry.dealId };
}

/**
 * Refused accesses are recorded bounded: a caller has this many slots a minute, whatever deals
 * their requests name, and a refused request takes one (with an entry for each deal it named),
 * so no one grows the trail faster than that by refused requests. A refusal whose slot is
 * taken is counted instead (the `RefusalsNotRecorded` metric).
 */
const REFUSAL_SLOTS_PER_MINUTE = 5;

/** A refused request's slot: its request id's hash, so a request retried lands on the same one. */
export function refusalSlot(requestId: string): number {
  const hash = createHash('sha256').update(requestId).digest();
  return hash.readUInt32BE(0) % REFUSAL_SLOTS_PER_MINUTE;
}

/** The file an entry is filed under for its owner: a copy's source for deal_file.add. */
export const followedFileOf = (entry: EntryFacts): number | undefined =>
  entry.action === 'deal_file.add' ? entry.sourceFileId : entry.fileId;
