import type { Requester } from '../access-trail/access-entry.ts';
import type { ApiEvent } from './api-event.ts';

/**
 * Who asked, as the access trail records it: the authenticated caller, API Gateway's own
 * request id (what `apigw-requestid` shows), the address it saw and the `user-agent` sent.
 */
export function requesterOf(event: ApiEvent & { readonly userId: number }): Requester {
  const userAgent = event.headers['user-agent'];
  return {
    userId: event.userId,
    requestId: event.requestContext.requestId,
    sourceIp: event.requestContext.http.sourceIp,
    ...(userAgent === undefined || userAgent === '' ? {} : { userAgent }),
  };
}
