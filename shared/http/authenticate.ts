import type { MiddlewareObj } from '@middy/core';
import type { ApiEvent } from './api-event.ts';
import { UnauthorizedError } from './http-errors.ts';
import type { ApiResult } from './responses.ts';
import { parseUserId } from './user-id.ts';

/**
 * The caller is who API Gateway's JWT authorizer verified. The id claim must hold a positive
 * integer (`claimName`, the function's USER_ID_CLAIM); anything else is refused exactly as the authorizer refuses a bad token.
 */
export function authenticate(
  claimName: string,
): MiddlewareObj<ApiEvent & { userId: number }, ApiResult> {
  return {
    name: 'authenticate',
    before: (request) => {
      // Typed as always there, but a route deployed without the JWT authorizer has none.
      const authorizer = request.event.requestContext.authorizer as
        { jwt?: { claims?: Record<string, unknown> } } | undefined;
      const claims = authorizer?.jwt?.claims ?? {};
      const userId = parseUserId(claims[claimName]);
      if (userId === undefined) {
        throw new UnauthorizedError(`the ${claimName} claim is not a user id`);
      }
      request.event.userId = userId;
    },
  };
}
