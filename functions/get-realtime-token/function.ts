import { accountErased, validationFailed } from '#shared/api/examples.ts';
import { defineOperation, detailAnswer, jsonAnswer } from '#shared/api/operation.ts';
import { defineFunction } from '#shared/functions/function-declaration.ts';
import {
  getRealtimeTokenRequest,
  RealtimeAccessResponseSchema,
} from '#shared/realtime/api/realtime-token.ts';

const getRealtimeTokenOperation = defineOperation({
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
    403: accountErased('token, not even one with no rooms'),
    404: detailAnswer('A listed room is not open to you; no token is issued', 'Not Found'),
    422: validationFailed({
      type: 'missing',
      loc: ['body', 'room_ids'],
      msg: 'Field required',
      input: {},
    }),
  },
});

export const getRealtimeTokenFunction = defineFunction({
  id: 'GetRealtimeToken',
  entry: 'functions/get-realtime-token/handler.ts',
  routes: [
    {
      method: 'POST',
      path: '/api/v1/auth/get-realtime-token',
      auth: 'jwt',
      operation: getRealtimeTokenOperation,
    },
  ],
  sizing: { memoryMb: 512, timeoutSeconds: 10 },
  table: [
    // The caller's memberships and deals, in one batch read.
    { items: ['BatchGetItem'], in: 'groups' },
    { items: ['GetItem'], in: 'users', keysOnly: true, why: "the caller's erasure marker" },
  ],
  // An entry per room before the token is signed, and refused requests' entries.
  trail: [{ items: ['PutItem'] }],
  realtimeKeys: 'read',
  // The token's room stage, issuer, audience and lifetime; the trail's retention.
  settings: [
    'STAGE',
    'REALTIME_ISSUER',
    'REALTIME_AUDIENCE',
    'REALTIME_TOKEN_SECONDS',
    'ACCESS_TRAIL_RETENTION_DAYS',
  ],
});
