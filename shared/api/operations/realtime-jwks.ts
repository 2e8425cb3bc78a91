import { RealtimeJwksSchema } from '../../schemas/realtime-jwks.ts';
import { defineOperation, jsonAnswer } from '../operation.ts';

export const realtimeJwksOperation = defineOperation({
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
