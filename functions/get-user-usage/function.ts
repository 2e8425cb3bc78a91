import { defineOperation, jsonAnswer } from '#shared/api/operation.ts';
import { defineFunction } from '#shared/functions/function-declaration.ts';
import { UserUsageSchema } from '#shared/usage/api/user-usage.ts';
import { STORAGE_LIMIT_SETTINGS } from '#shared/config/environment.ts';

const getUserUsageOperation = defineOperation({
  operationId: 'getUserUsage',
  summary: 'Your storage usage',
  description:
    'What your files and pending direct uploads hold against your storage quota, in files ' +
    'and in bytes. An upload or a direct-upload start that would take either over `allowed` ' +
    'gets `403`, and stores nothing.',
  tag: 'User files',
  origin: 'extension',
  request: {},
  responses: {
    200: jsonAnswer('Your usage and limits', UserUsageSchema, {
      files: { used: 1, reserved: 1, allowed: 10000 },
      bytes: { used: 482133, reserved: 31457280, allowed: 10737418240 },
    }),
  },
});

export const getUserUsageFunction = defineFunction({
  id: 'GetUserUsage',
  entry: 'functions/get-user-usage/handler.ts',
  routes: [
    {
      method: 'GET',
      path: '/api/v1/user/me/usage',
      auth: 'jwt',
      operation: getUserUsageOperation,
    },
  ],
  sizing: { memoryMb: 512, timeoutSeconds: 10 },
  table: [
    {
      items: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem'],
      in: 'users',
      why: 'the usage; Query, PutItem, ConditionCheckItem: a first count (the owner not erased); DeleteItem, UpdateItem: expired reservations given back',
    },
  ],
  settings: [...STORAGE_LIMIT_SETTINGS],
});
