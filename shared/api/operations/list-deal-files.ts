import * as z from 'zod';
import { DealFileSchema, listDealFilesRequest } from '../../schemas/deal-file.ts';
import { defineOperation, detailAnswer, jsonAnswer } from '../operation.ts';

export const listDealFilesOperation = defineOperation({
  operationId: 'listDealFiles',
  summary: 'List a deal’s files',
  description: 'Every file of the deal, newest first, for any member of its group.',
  tag: 'Deal files',
  origin: 'extension',
  request: listDealFilesRequest,
  responses: {
    200: jsonAnswer('The deal’s files', z.array(DealFileSchema), [
      {
        name: 'Term sheet.pdf',
        id: 6,
        deal_id: 3,
        type: 'financials',
        created_at: '2026-06-01T09:30:00.000Z',
        updated_at: '2026-06-02T14:05:00.000Z',
        is_archived: false,
      },
    ]),
    404: detailAnswer('You are not in the group, or the deal is not in it', 'Not Found'),
  },
});
