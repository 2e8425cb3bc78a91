import * as z from 'zod';
import { DealFileSchema, listDealFilesRequest } from '../../schemas/deal-file.ts';
import { defineOperation, detailAnswer, jsonAnswer } from '../operation.ts';
import { LIST_HEADERS, LIST_PAGING, LIST_TOO_LARGE } from './list-answers.ts';
import { DEAL_FILE_EXAMPLE } from './examples.ts';

export const listDealFilesOperation = defineOperation({
  operationId: 'listDealFiles',
  summary: 'List a deal’s files',
  description: `Every file of the deal, for any member of its group.${LIST_PAGING}`,
  tag: 'Deal files',
  origin: 'extension',
  request: listDealFilesRequest,
  responses: {
    200: jsonAnswer(
      'The deal’s files, newest first',
      z.array(DealFileSchema),
      [DEAL_FILE_EXAMPLE],
      LIST_HEADERS,
    ),
    400: LIST_TOO_LARGE,
    404: detailAnswer('You are not in the group, or the deal is not in it', 'Not Found'),
  },
});
