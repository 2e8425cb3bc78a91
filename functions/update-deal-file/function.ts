import { DEAL_FILE_CHANGE_REFUSALS } from '#shared/api/deal-file-change-refusals.ts';
import { DEAL_FILE_EXAMPLE, validationFailed } from '#shared/api/examples.ts';
import { defineOperation, jsonAnswer } from '#shared/api/operation.ts';
import { defineFunction } from '#shared/functions/function-declaration.ts';
import { DealFileSchema, updateDealFileRequest } from '#shared/deal-files/api/deal-file.ts';

const updateDealFileOperation = defineOperation({
  operationId: 'updateDealFile',
  summary: 'Update a deal file',
  description:
    'Sets the file’s `type` (`null` clears it; an empty object changes nothing). Editors of ' +
    'the group only.',
  tag: 'Deal files',
  origin: 'contract',
  request: updateDealFileRequest,
  requestExample: { type: 'financials' },
  responses: {
    200: jsonAnswer('The file as it now is', DealFileSchema, DEAL_FILE_EXAMPLE),
    ...DEAL_FILE_CHANGE_REFUSALS,
    422: validationFailed({
      type: 'enum',
      loc: ['body', 'type'],
      msg: "Input should be 'deck', 'financials', 'raw_data', 'snapshot', 'full', 'mini', 'nano' or 'other'",
      input: 'memo',
      ctx: {
        expected: "'deck', 'financials', 'raw_data', 'snapshot', 'full', 'mini', 'nano' or 'other'",
      },
    }),
  },
});

export const updateDealFileFunction = defineFunction({
  id: 'UpdateDealFile',
  entry: 'functions/update-deal-file/handler.ts',
  routes: [
    {
      method: 'PUT',
      path: '/api/v1/group/{group_id}/deal/{deal_id}/file/{file_id}',
      auth: 'jwt',
      operation: updateDealFileOperation,
    },
  ],
  sizing: { memoryMb: 512, timeoutSeconds: 10 },
  // One batch read of membership, deal and file; then one transaction that checks the
  // membership and the deal (ConditionCheckItem) as it writes the file.
  table: [{ items: ['BatchGetItem', 'ConditionCheckItem', 'UpdateItem'], in: 'groups' }],
  // The change's entry, in its transaction; refusals' entries.
  trail: [{ items: ['PutItem'] }],
  settings: ['ACCESS_TRAIL_RETENTION_DAYS'],
});
