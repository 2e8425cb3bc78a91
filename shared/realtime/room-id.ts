import type { DealRef } from '../groups/group.ts';

/**
 * `<stage>:v1:group:<group_id>:deal:<deal_id>` (the contract writes the first segment
 * `<environment>`). The room stage is a lower-case slug (a letter, then up to 31 letters,
 * digits or hyphens); a stage answers only for its own (`production`, `development`,
 * `local`). Ids are positive integers without leading zeros.
 */
export const ROOM_ID_PATTERN =
  '^[a-z][a-z0-9-]{0,31}:v1:group:[1-9][0-9]{0,15}:deal:[1-9][0-9]{0,15}$';

/** The longest room id the pattern allows: 32 + 10 + 16 + 6 + 16 characters. */
export const ROOM_ID_MAX_LENGTH = 80;

/** The same pattern, capturing the room stage, group and deal. */
const ROOM_ID = /^([a-z][a-z0-9-]{0,31}):v1:group:([1-9][0-9]{0,15}):deal:([1-9][0-9]{0,15})$/;

/** A deal's room, named by the stage that serves it. */
export interface Room extends DealRef {
  readonly roomId: string;
  readonly stage: string;
}

/** The room an id names, or undefined when it is malformed or names an id no deal can have. */
export function parseRoomId(roomId: string): Room | undefined {
  const match = ROOM_ID.exec(roomId);
  if (match === null) return undefined;
  const [, stage = '', group = '', deal = ''] = match;
  const groupId = Number(group);
  const dealId = Number(deal);
  if (!Number.isSafeInteger(groupId) || !Number.isSafeInteger(dealId)) return undefined;
  return { roomId, stage, groupId, dealId };
}
