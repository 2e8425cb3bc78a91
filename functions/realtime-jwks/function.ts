import { defineOperation, jsonAnswer } from '#shared/api/operation.ts';
import { defineFunction } from '#shared/functions/function-declaration.ts';
import { RealtimeJwksSchema } from '#shared/realtime/api/realtime-jwks.ts';

const realtimeJwksOperation = defineOperation({
  operationId: 'realtimeJwks',
  summary: 'Keys that verify realtime tokens',
  description:
    'The public keys realtime servers verify tokens with (no token needed). Cache it for ' +
    'up to five minutes; a new key is published before it signs.',
  tag: 'Realtime collaboration',
  origin: 'extension',
  request: {},
  responses: {
    200: jsonAnswer('The JWK Set', RealtimeJwksSchema, {
      keys: [
        {
          kty: 'EC',
          crv: 'P-256',
          x: '4-6GrxzaQ_6RClAUYL0Xl1-2lP_anE1dXXm6ttZ0LnI',
          y: 'BAHAe_OqaRm2r4Jq3iU2m0c8sVd1hS3yYhH1sWc4vGk',
          kid: 'SZP60db6y6vW8Z-6J3XxfqEsgmeJAF8gHHgOQTBufTk',
          alg: 'ES256',
          use: 'sig',
        },
      ],
    }),
  },
});

export const realtimeJwksFunction = defineFunction({
  id: 'RealtimeJwks',
  entry: 'functions/realtime-jwks/handler.ts',
  routes: [
    {
      method: 'GET',
      path: '/api/v1/auth/realtime-jwks.json',
      auth: 'none',
      publicBecause: 'realtime servers fetch the public verification keys without a user token',
      operation: realtimeJwksOperation,
    },
  ],
  sizing: { memoryMb: 256, timeoutSeconds: 5 },
  realtimeKeys: 'read',
});
