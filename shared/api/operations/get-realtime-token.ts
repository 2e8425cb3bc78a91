import {
  getRealtimeTokenRequest,
  RealtimeAccessResponseSchema,
} from '../../schemas/realtime-token.ts';
import { defineOperation, detailAnswer, jsonAnswer } from '../operation.ts';

export const getRealtimeTokenOperation = defineOperation({
  operationId: 'getRealtimeToken',
  summary: 'Get a realtime-collaboration token',
  description:
    'An ES256 JWT for the caller that opens the listed deal rooms; `[]` gives a general ' +
    'token with no rooms. All or nothing: one room you may not open makes the whole ' +
    'request a 404.',
  tag: 'Realtime collaboration',
  origin: 'contract',
  request: getRealtimeTokenRequest,
  requestExample: { room_ids: ['production:v1:group:1:deal:3'] },
  responses: {
    200: jsonAnswer('The token', RealtimeAccessResponseSchema, {
      token: 'eyJhbGciOiJFUzI1NiIsImtpZCI6IlNaUDYw…',
    }),
    404: detailAnswer('A listed room is not open to you; no token is issued', 'Not Found'),
  },
});
