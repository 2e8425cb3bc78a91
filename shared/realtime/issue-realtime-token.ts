import type { DealRoleReader } from '../groups/deal-roles.ts';
import type { Role } from '../groups/group.ts';
import { NotFound } from '../domain/outcome.ts';
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
 */
export async function issueRealtimeToken(
  ports: {
    readonly dealRoles: DealRoleReader;
    readonly realtimeKeys: Pick<RealtimeKeyStore, 'load'>;
    readonly now?: () => Date;
  },
  config: RealtimeTokenConfig,
  request: { readonly userId: number; readonly roomIds: readonly string[] },
): Promise<string> {
  const rooms: Room[] = [];
  for (const roomId of new Set(request.roomIds)) {
    const room = parseRoomId(roomId);
    if (room?.stage !== config.stage) throw new NotFound();
    rooms.push(room);
  }
  const [keys, roles] = await Promise.all([
    ports.realtimeKeys.load(),
    ports.dealRoles.rolesIn(request.userId, rooms),
  ]);
  const granted: Record<string, readonly RoomPermission[]> = {};
  rooms.forEach((room, i) => {
    const role = roles[i];
    if (role === undefined) throw new NotFound();
    granted[room.roomId] = PERMISSIONS[role];
  });
  return signRealtimeToken(keys, ports.now?.() ?? new Date(), {
    issuer: config.issuer,
    audience: config.audience,
    subject: String(request.userId),
    tokenSeconds: config.tokenSeconds,
    rooms: granted,
  });
}
