import { newAccessEntry, type Requester } from '../access-trail/access-entry.ts';
import type { AccessTrail } from '../access-trail/access-trail.ts';
import { type RefusalPorts, refusedAfterRecording } from '../access-trail/record-refusals.ts';
import type { DealRoleReader } from '../groups/deal-roles.ts';
import type { Role } from '../groups/group.ts';
import { AccountErased, NotFound } from '../domain/outcome.ts';
import type { UserItems } from '../removal/user-items.ts';
import type { RealtimeTokenConfig } from './realtime-config.ts';
import type { RealtimeKeyStore } from './realtime-key-store.ts';
import { parseRoomId, type Room } from './room-id.ts';
import { type RoomPermission, signRealtimeToken } from './sign-realtime-token.ts';

const PERMISSIONS: Readonly<Record<Role, readonly RoomPermission[]>> = {
  viewer: ['read'],
  editor: ['read', 'write'],
};

/**
 * POST /api/v1/auth/get-realtime-token: a token for every listed room, or none at all. A room
 * is not accessible when it is another deployment's, when the caller is not a member of its
 * group, or when its deal is not in that group; any such room is a 404 for the whole request.
 * An erased caller gets no token at all, not even a general one (AccountErased): their id
 * opens nothing from the moment their erasure began, whatever their memberships still say.
 *
 * The access trail gets an entry per room, all in one round trip, before the token is signed
 * (TrailUnavailable, and no token, when they cannot be written). A refused request is
 * recorded in the trail of each of this stage's deals it named, bounded per caller.
 */
export async function issueRealtimeToken(
  ports: RefusalPorts & {
    readonly dealRoles: DealRoleReader;
    readonly realtimeKeys: Pick<RealtimeKeyStore, 'load'>;
    readonly userItems: Pick<UserItems, 'isErased'>;
    readonly accessTrail: Pick<AccessTrail, 'record' | 'recordRefusal'>;
  },
  config: RealtimeTokenConfig,
  request: { readonly requester: Requester; readonly roomIds: readonly string[] },
): Promise<string> {
  const { requester } = request;
  const rooms = [...new Set(request.roomIds)].map(parseRoomId);
  const ours = rooms.filter((room): room is Room => room?.stage === config.stage);
  // Another deployment's room refuses the request: its roles need not be read.
  const allOurs = ours.length === rooms.length;
  const [keys, roles, erased] = await Promise.all([
    ports.realtimeKeys.load(),
    ports.dealRoles.rolesIn(requester.userId, allOurs ? ours : []),
    ports.userItems.isErased(requester.userId),
  ]);
  const inRooms = ours.map(({ groupId, dealId, roomId }) => ({
    action: 'realtime_token.issue' as const,
    groupId,
    dealId,
    roomId,
  }));
  const refuse = (refusal: NotFound | AccountErased) =>
    refusedAfterRecording(ports, requester, refusal, inRooms);
  if (erased) throw await refuse(new AccountErased());
  if (!allOurs || roles.some((role) => role === undefined)) throw await refuse(new NotFound());
  const granted: Record<string, readonly RoomPermission[]> = {};
  ours.forEach((room, i) => {
    const role = roles[i];
    if (role !== undefined) granted[room.roomId] = PERMISSIONS[role];
  });
  if (inRooms.length > 0) {
    await ports.accessTrail.record(
      inRooms.map((room) => newAccessEntry({ ...room, outcome: 'allowed' }, requester, ports)),
    );
  }
  return signRealtimeToken(keys, ports.now?.() ?? new Date(), {
    issuer: config.issuer,
    audience: config.audience,
    subject: String(requester.userId),
    tokenSeconds: config.tokenSeconds,
    rooms: granted,
  });
}
