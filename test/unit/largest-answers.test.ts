/**
 * Every route's largest valid answer, against Lambda's 6 MB: built from the domain's own limits
 * with the worst text JSON can hold (each character of a name escaped to six bytes), or, for
 * routes whose answer is fixed, the real handler's answer. A list pages: its largest page is
 * measured, and an unpaged list that would not fit is refused (test/unit/answer-size.test.ts).
 * The worst 422 of each JSON route is held by test/hardening/body-limits.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { handler as apiDocs } from '#functions/api-docs/handler.ts';
import { handler as openApiDocument } from '#functions/openapi-document/handler.ts';
import { API_ROUTES, type RouteKey } from '#functions/service-functions.ts';
import { routeKey } from '#shared/api/routes.ts';
import type { DealFile } from '#shared/deal-files/deal-file.ts';
import { DOCS_ASSET_NAMES } from '#shared/docs/swagger-ui-assets.ts';
import { LAMBDA_MAX_RESPONSE_BYTES, resultBytes } from '#shared/http/answer-size.ts';
import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { MAX_ROOMS_PER_TOKEN } from '#shared/realtime/api/realtime-token.ts';
import {
  MAX_FILES_PER_NOTIFICATION,
  MAX_NOTIFY_MESSAGE_LENGTH,
  MAX_FUND_NAME_LENGTH,
} from '#shared/notifications/api/notify-submission.ts';
import { MAX_PAGE_SIZE } from '#shared/http/list-page.ts';
import { toDealFileBody } from '#shared/deal-files/api/deal-file-response.ts';
import { toAcceptedBody, toStatusBody } from '#shared/notifications/api/notification-response.ts';
import { toUserFileBody } from '#shared/user-files/api/user-file-response.ts';
import { ROOM_ID_MAX_LENGTH } from '#shared/realtime/room-id.ts';
import { signRealtimeToken } from '#shared/realtime/sign-realtime-token.ts';
import { publicJwkOf, withNewKey } from '#shared/realtime/realtime-key-set.ts';
import { newSubmissionNotification } from '#shared/notifications/submission-notification.ts';
import type { UserFile } from '#shared/user-files/user-file.ts';
import { MAX_UPLOAD_BYTES } from '#shared/user-files/upload-limits.ts';
import { apiEvent, lambdaContext } from '#test/support/api-events.ts';

/** Names are at most 255 characters; a control character is six bytes in JSON. */
const WORST_NAME = '\u0001'.repeat(255);
const MAX_ID = Number.MAX_SAFE_INTEGER;
const AT = '2026-11-24T06:32:48.123Z';
/** S3's longest bucket name is 63 characters. */
const WORST_LOCATION = `s3://${'b'.repeat(63)}/users/${String(MAX_ID)}/files/${String(MAX_ID)}`;

const worstUserFile: UserFile = {
  id: MAX_ID,
  userId: MAX_ID,
  name: WORST_NAME,
  type: 'financials',
  createdAt: AT,
  updatedAt: AT,
  isArchived: true,
  filesize: MAX_UPLOAD_BYTES,
  location: WORST_LOCATION,
};
const worstDealFile: DealFile = { ...worstUserFile, groupId: MAX_ID, dealId: MAX_ID };

const worstNotification = newSubmissionNotification({
  userId: MAX_ID,
  notificationId: crypto.randomUUID(),
  files: Array.from({ length: MAX_FILES_PER_NOTIFICATION }, (_, i) => ({
    id: MAX_ID - i,
    name: WORST_NAME,
    type: 'financials' as const,
    size: MAX_UPLOAD_BYTES,
  })),
  fundName: '\u0001'.repeat(MAX_FUND_NAME_LENGTH),
  message: '\u0001'.repeat(MAX_NOTIFY_MESSAGE_LENGTH),
  at: new Date(AT),
});

async function worstToken(): Promise<ApiResult> {
  const keys = await withNewKey({ keys: [] }, new Date(0), {
    activateInSeconds: 0,
    tokenSeconds: 86_400,
  });
  const rooms = Object.fromEntries(
    Array.from({ length: MAX_ROOMS_PER_TOKEN }, (_, i) => [
      `${'e'.repeat(32)}:v1:group:${String(MAX_ID - i)}:deal:${String(MAX_ID)}`.slice(
        0,
        ROOM_ID_MAX_LENGTH,
      ),
      ['read', 'write'] as const,
    ]),
  );
  const token = signRealtimeToken(keys, new Date(), {
    issuer: `https://${'i'.repeat(200)}.example`,
    audience: 'a'.repeat(255),
    subject: String(MAX_ID),
    tokenSeconds: 86_400,
    rooms,
  });
  return jsonResponse(200, { token });
}

async function worstJwks(): Promise<ApiResult> {
  // Two keys live during a rotation.
  let keys = await withNewKey({ keys: [] }, new Date(0), {
    activateInSeconds: 0,
    tokenSeconds: 86_400,
  });
  keys = await withNewKey(keys, new Date(1000), { activateInSeconds: 0, tokenSeconds: 86_400 });
  return jsonResponse(200, { keys: keys.keys.map(publicJwkOf) });
}

const get = (path: string, pathParameters?: Record<string, string>) => ({
  ...apiEvent({ routeKey: `GET ${path}`, ...(pathParameters && { pathParameters }) }),
  rawPath: path,
});

/**
 * Each route's largest answer, or why it has none larger than a few bytes: a route the
 * functions list declares and this does not name fails to compile here.
 */
const LARGEST: Record<RouteKey, () => ApiResult | 'empty' | Promise<ApiResult>> = {
  'GET /api/v1/user/me/file': () =>
    jsonResponse(200, Array(MAX_PAGE_SIZE).fill(toUserFileBody(worstUserFile)), {
      link: `</api/v1/user/me/file?limit=${String(MAX_PAGE_SIZE)}&cursor=${'c'.repeat(60)}>; rel="next"`,
    }),
  'POST /api/v1/user/me/file': () => jsonResponse(201, toUserFileBody(worstUserFile)),
  // A signed form: its policy and signature, for a key and a name of their own limits.
  'POST /api/v1/user/me/file/upload': () =>
    jsonResponse(201, {
      id: MAX_ID,
      url: `https://${'b'.repeat(63)}.s3.ap-southeast-2.amazonaws.com/`,
      fields: Object.fromEntries(
        Array.from({ length: 12 }, (_, i) => [`field-${String(i)}`, 'f'.repeat(4096)]),
      ),
      expires_at: AT,
      max_filesize: MAX_UPLOAD_BYTES,
    }),
  'POST /api/v1/user/me/file/upload/{file_id}/complete': () =>
    jsonResponse(200, toUserFileBody(worstUserFile)),
  'GET /api/v1/user/me/file/{file_id}/download': () => 'empty',
  'GET /api/v1/user/me/file/{file_id}': () => jsonResponse(200, toUserFileBody(worstUserFile)),
  'PATCH /api/v1/user/me/file/{file_id}': () => jsonResponse(200, toUserFileBody(worstUserFile)),
  // Six numbers, each at most 2^53 - 1.
  'GET /api/v1/user/me/usage': () => {
    const most = { used: MAX_ID, reserved: MAX_ID, allowed: MAX_ID };
    return jsonResponse(200, { files: most, bytes: most });
  },
  'DELETE /api/v1/user/me/file/{file_id}': () => 'empty',
  'POST /api/v1/user/me/file/notify': () => jsonResponse(202, toAcceptedBody(worstNotification)),
  'GET /api/v1/user/me/file/notify/{notification_id}': () =>
    jsonResponse(200, toStatusBody(worstNotification)),
  'GET /api/v1/group/{group_id}/deal/{deal_id}/file': () =>
    jsonResponse(200, Array(MAX_PAGE_SIZE).fill(toDealFileBody(worstDealFile))),
  'PUT /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id}': () =>
    jsonResponse(200, toDealFileBody(worstDealFile)),
  'DELETE /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id}': () => 'empty',
  'POST /api/v1/auth/get-realtime-token': worstToken,
  'GET /api/v1/auth/realtime-jwks.json': worstJwks,
  'GET /openapi.json': () => openApiDocument(get('/openapi.json'), lambdaContext()),
  'GET /docs': () => apiDocs(get('/docs'), lambdaContext()),
  'GET /docs/{asset}': async () => {
    // The largest asset, uncompressed (a client that does not accept gzip).
    const answers = await Promise.all(
      DOCS_ASSET_NAMES.map((asset) => apiDocs(get(`/docs/${asset}`, { asset }), lambdaContext())),
    );
    return answers.reduce((a, b) => (resultBytes(a) >= resultBytes(b) ? a : b));
  },
};

describe("every route's largest valid answer fits Lambda's response limit", () => {
  it.each(API_ROUTES.map(routeKey))('%s', async (route) => {
    const largest = (LARGEST as Partial<Record<string, () => unknown>>)[route];
    if (largest === undefined) {
      throw new Error(`${route}: add its largest answer to LARGEST in this file`);
    }
    const answer = (await largest()) as ApiResult | 'empty';
    if (answer === 'empty') return;
    expect(answer.statusCode).toBeLessThan(300);
    // A page, too, with room to spare: half the limit at most.
    expect(resultBytes(answer)).toBeLessThan(LAMBDA_MAX_RESPONSE_BYTES / 2);
  });
});
