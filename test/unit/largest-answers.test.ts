/**
 * Every route's largest valid answer, against Lambda's 6 MB: built from the domain's own limits
 * with the worst text JSON can hold (each character of a name escaped to six bytes), or, for
 * routes whose answer is fixed, the real handler's answer. A list pages: its largest page is
 * measured, and an unpaged list that would not fit is refused (test/unit/answer-size.test.ts).
 * The worst 422 of each JSON route is held by test/hardening/body-limits.test.ts.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { handler as apiDocs } from '#functions/api-docs/handler.ts';
import { handler as openApiDocument } from '#functions/openapi-document/handler.ts';
import { API_ROUTES, type RouteKey } from '#functions/service-functions.ts';
import { type DocumentedRoute, routeKey } from '#shared/api/routes.ts';
import { DealFileSchema } from '#shared/deal-files/api/deal-file.ts';
import { DirectUploadTicketSchema } from '#shared/direct-uploads/api/direct-upload.ts';
import { UserUsageSchema } from '#shared/usage/api/user-usage.ts';
import { UserFileSchema } from '#shared/user-files/api/user-file.ts';
import type { DealFile } from '#shared/deal-files/deal-file.ts';
import { DOCS_ASSET_NAMES } from '#shared/docs/swagger-ui-assets.ts';
import { LAMBDA_MAX_RESPONSE_BYTES, resultBytes } from '#shared/http/answer-size.ts';
import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { MAX_ROOMS_PER_TOKEN } from '#shared/realtime/api/realtime-token.ts';
import {
  MAX_FILES_PER_NOTIFICATION,
  MAX_NOTIFY_MESSAGE_LENGTH,
  MAX_FUND_NAME_LENGTH,
  NotificationAcceptedSchema,
  NotificationStatusBodySchema,
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

const PAGE_LINK = `<?limit=${String(MAX_PAGE_SIZE)}&cursor=${'c'.repeat(60)}>; rel="next"`;

/** The largest body of each schema a route answers with; a list answers a page of them. */
const LARGEST_BODY = new Map<z.ZodType, () => unknown>([
  [UserFileSchema, () => toUserFileBody(worstUserFile)],
  [DealFileSchema, () => toDealFileBody(worstDealFile)],
  // Six numbers, each at most 2^53 - 1.
  [
    UserUsageSchema,
    () => {
      const most = { used: MAX_ID, reserved: MAX_ID, allowed: MAX_ID };
      return { files: most, bytes: most };
    },
  ],
  [NotificationAcceptedSchema, () => toAcceptedBody(worstNotification)],
  [NotificationStatusBodySchema, () => toStatusBody(worstNotification)],
  // A signed form: its policy and signature, for a key and a name of their own limits.
  [
    DirectUploadTicketSchema,
    () => ({
      id: MAX_ID,
      url: `https://${'b'.repeat(63)}.s3.ap-southeast-2.amazonaws.com/`,
      fields: Object.fromEntries(
        Array.from({ length: 12 }, (_, i) => [`field-${String(i)}`, 'f'.repeat(4096)]),
      ),
      expires_at: AT,
      max_filesize: MAX_UPLOAD_BYTES,
    }),
  ],
]);

/** Routes whose answer is none of those bodies: signed tokens, key sets, the documents. */
const LARGEST_OF_ROUTE: Partial<Record<RouteKey, () => Promise<ApiResult>>> = {
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

/** Each route's largest answers, one per success it declares; none for an empty one. */
function largestAnswers(route: DocumentedRoute): Promise<ApiResult>[] {
  const ofRoute = LARGEST_OF_ROUTE[routeKey(route) as RouteKey];
  if (ofRoute !== undefined) return [ofRoute()];
  return Object.entries(route.operation.responses)
    .filter(([status]) => Number(status) < 300)
    .flatMap(([status, answer]) =>
      (answer.content ?? []).map(({ schema }) => {
        const page = schema instanceof z.ZodArray ? (schema.element as z.ZodType) : undefined;
        const body = LARGEST_BODY.get(page ?? schema);
        if (body === undefined) {
          throw new Error(
            `${routeKey(route)} ${status}: add its body's largest to LARGEST_BODY in this file`,
          );
        }
        return Promise.resolve(
          page === undefined
            ? jsonResponse(Number(status), body())
            : jsonResponse(Number(status), Array(MAX_PAGE_SIZE).fill(body()), {
                link: `<${route.path}${PAGE_LINK}`,
              }),
        );
      }),
    );
}

describe("every route's largest valid answer fits Lambda's response limit", () => {
  it.each(API_ROUTES.map((route) => [routeKey(route), route] as const))(
    '%s',
    async (_key, route) => {
      for (const answer of await Promise.all(largestAnswers(route))) {
        expect(answer.statusCode).toBeLessThan(300);
        // A page, too, with room to spare: half the limit at most.
        expect(resultBytes(answer)).toBeLessThan(LAMBDA_MAX_RESPONSE_BYTES / 2);
      }
    },
  );
});
