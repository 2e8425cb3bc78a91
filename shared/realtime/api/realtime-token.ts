import * as z from 'zod';
import { ROOM_ID_MAX_LENGTH, ROOM_ID_PATTERN } from '../room-id.ts';

/** At most this many rooms in one token request: 50 rooms keep a token well under 8 KB. */
export const MAX_ROOMS_PER_TOKEN = 50;

const RoomIdSchema = z
  .string()
  .regex(new RegExp(ROOM_ID_PATTERN))
  // The pattern bounds the length; said for the document and the body limit.
  .meta({ maxLength: ROOM_ID_MAX_LENGTH })
  .describe('`<environment>:v1:group:<group_id>:deal:<deal_id>`');

/** POST /api/v1/auth/get-realtime-token: the contract's RealtimeTokenRequest. */
const RealtimeTokenRequestSchema = z
  .object({
    room_ids: z
      .array(RoomIdSchema)
      .max(MAX_ROOMS_PER_TOKEN)
      .describe('Rooms to open; [] asks for a general token. Duplicates count once.'),
  })
  .meta({ id: 'RealtimeTokenRequest' });

/** The contract's RealtimeAccessResponse. */
export const RealtimeAccessResponseSchema = z
  .object({ token: z.string().describe('An ES256 JWT; see the README for its claims') })
  .meta({ id: 'RealtimeAccessResponse' });

/** What POST /api/v1/auth/get-realtime-token validates (see `ApiOperation.request`). */
export const getRealtimeTokenRequest = { body: RealtimeTokenRequestSchema };
