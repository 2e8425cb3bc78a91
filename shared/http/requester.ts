import type { Requester } from '../access-trail/access-entry.ts';
import type { ApiEvent } from './api-event.ts';

/**
 * The most of a `user-agent` an entry keeps: browsers send a few hundred characters, and a
 * header of kilobytes would otherwise be stored, sealed and exported whole with every entry.
 */
const USER_AGENT_MAX_LENGTH = 1024;

/**
 * Who asked, as the access trail records it: the authenticated caller, API Gateway's own
 * request id (what `apigw-requestid` shows), the address it saw and the `user-agent` sent
 * (its first `USER_AGENT_MAX_LENGTH` characters).
 */
export function requesterOf(event: ApiEvent & { readonly userId: number }): Requester {
  const userAgent = event.headers['user-agent']?.slice(0, USER_AGENT_MAX_LENGTH);
  return {
    userId: event.userId,
    requestId: event.requestContext.requestId,
    sourceIp: event.requestContext.http.sourceIp,
    ...(userAgent === undefined || userAgent === '' ? {} : { userAgent }),
  };
}
