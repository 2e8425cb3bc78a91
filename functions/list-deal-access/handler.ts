import middy from '@middy/core';
import { readDealTrail } from '#shared/access-reports/read-deal-trail.ts';
import {
  listDealAccessRequest,
  trailFilterOf,
  trailPageAnswer,
} from '#shared/access-reports/api/access-entry.ts';
import { trailQueries } from '#shared/access-reports/adapters/dynamo-trail-queries.ts';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { httpApi } from '#shared/http/http-api.ts';
import { compressWhenAccepted } from '#shared/http/list-answer.ts';
import { MAX_PAGE_SIZE } from '#shared/http/list-page.ts';
import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { validateRequest } from '#shared/http/validate-request.ts';
import { dealRoles } from '#shared/groups/adapters/dynamo-deal-roles.ts';
import { documentClient } from '#shared/storage/aws/dynamodb.ts';
import { composeAdapters } from '#shared/wiring/composition-root.ts';
import { lambdaEntry } from '#shared/wiring/lambda-entry.ts';
import type { ServiceAdapters } from '#shared/wiring/service-adapters.ts';
import type { HandlerSettings } from '#shared/config/environment.ts';
import { listDealAccessFunction } from './function.ts';

/**
 * GET /api/v1/group/{group_id}/deal/{deal_id}/access (extension): a page of the deal's access
 * trail, to the group's editors, newest first; the next page in the `Link` header.
 */
export const createHandler = (
  adapters: Pick<ServiceAdapters, 'dealRoles' | 'trailQueries'>,
  settings: Pick<HandlerSettings, 'USER_ID_CLAIM'>,
) =>
  middy<ApiEvent, ApiResult>()
    .use(httpApi())
    .use(authenticate(settings.USER_ID_CLAIM))
    .use(validateRequest(listDealAccessRequest, settings))
    .use(compressWhenAccepted())
    .handler<ApiEvent, ApiResult>(async ({ userId, input, rawPath }, _context, { signal }) => {
      const { group_id: groupId, deal_id: dealId } = input.path;
      const page = await readDealTrail(
        { dealRoles: adapters.dealRoles, trail: adapters.trailQueries },
        {
          userId,
          deal: { groupId, dealId },
          filter: trailFilterOf(input.query),
          page: {
            limit: input.query.limit ?? MAX_PAGE_SIZE,
            ...(input.query.cursor === undefined ? {} : { after: input.query.cursor }),
            signal,
          },
        },
      );
      const { body, headers } = trailPageAnswer(rawPath, input.query, page);
      return jsonResponse(200, body, headers);
    });

export const handler = lambdaEntry(listDealAccessFunction.variables, (env) =>
  createHandler(
    composeAdapters({ ...env, documents: documentClient }, { dealRoles, trailQueries }),
    env,
  ),
);
