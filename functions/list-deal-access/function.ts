import * as z from 'zod';
import { idNotAnInteger } from '#shared/api/examples.ts';
import { listHeaders } from '#shared/api/list-answers.ts';
import { defineOperation, detailAnswer, jsonAnswer } from '#shared/api/operation.ts';
import { defineFunction } from '#shared/functions/function-declaration.ts';
import { MAX_PAGE_SIZE } from '#shared/http/list-page.ts';
import {
  ACCESS_ENTRY_EXAMPLES,
  AccessEntrySchema,
  listDealAccessRequest,
} from '#shared/access-reports/api/access-entry.ts';

const listDealAccessOperation = defineOperation({
  operationId: 'listDealAccess',
  summary: 'Read a deal’s access trail',
  description:
    'Every access to the deal and its room, and every change to its files, newest first: ' +
    'downloads, copies in, changes, deletes, realtime tokens, and refused accesses. For editors ' +
    'of its group; a viewer gets the same 404 as someone outside it. One page at a time, at ' +
    `most \`limit\` entries (1 to ${String(MAX_PAGE_SIZE)}, default ${String(MAX_PAGE_SIZE)}), ` +
    'and a `Link: <…>; rel="next"` header while more may follow, keeping the filters. A page ' +
    'reads a bounded part of the trail, so one whose filters match little may come back ' +
    'short, even empty, with its link: follow it to the end. A refused access is filed by ' +
    'its minute and comes after the other entries of that minute. The answer is gzipped when ' +
    'the request accepts it.',
  tag: 'Deal files',
  origin: 'extension',
  request: listDealAccessRequest,
  responses: {
    200: jsonAnswer(
      'The deal’s entries, newest first',
      z.array(AccessEntrySchema),
      ACCESS_ENTRY_EXAMPLES,
      listHeaders(
        '/api/v1/group/1/deal/8/access',
        'While more entries may follow',
        'MjAyNi0wNi0wMlQxNDowNTowMC4wMDBaIzk1ZjA',
      ),
    ),
    404: detailAnswer('You are not an editor of the group, or the deal is not in it', 'Not Found'),
    422: idNotAnInteger('group_id'),
  },
});

export const listDealAccessFunction = defineFunction({
  id: 'ListDealAccess',
  entry: 'functions/list-deal-access/handler.ts',
  routes: [
    {
      method: 'GET',
      path: '/api/v1/group/{group_id}/deal/{deal_id}/access',
      auth: 'jwt',
      operation: listDealAccessOperation,
    },
  ],
  // A page may read a few MB of entries and answer up to 2 MB of them.
  sizing: { memoryMb: 1024, timeoutSeconds: 20 },
  // The caller's membership and the deal in one batch read, then the deal's trail.
  table: [{ items: ['BatchGetItem'], in: 'groups' }],
  trail: [{ items: ['Query'], why: "the deal's entries" }],
});
