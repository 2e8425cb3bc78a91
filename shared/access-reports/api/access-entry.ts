import * as z from 'zod';
import { ROLES } from '../../groups/group.ts';
import { cursorField, MAX_PAGE_SIZE, pageLimitField, pageLink } from '../../http/list-page.ts';
import { pyId } from '../../http/fastapi/pydantic-fields.ts';
import {
  ACCESS_ACTIONS,
  ACCESS_OUTCOMES,
  type AccessEntry,
} from '../../access-trail/access-entry.ts';
import type { TrailFilter, TrailPage, TrailPosition } from '../trail-queries.ts';

/**
 * An entry as its readers see it: every field, in this order, `null` where it does not apply.
 * The operator's export writes the same fields in the same order.
 */
export const AccessEntrySchema = z
  .object({
    at: z.iso.datetime().describe('When, ISO 8601 UTC with milliseconds'),
    action: z.enum(ACCESS_ACTIONS).describe('What was done: the thing acted on, then the act'),
    outcome: z.enum(ACCESS_OUTCOMES),
    status: z.int().nullable().describe('The status a refused caller was answered with'),
    actor: z.enum(['user', 'operator']),
    user_id: z.int().nullable().describe('The acting user; null for the operator'),
    group_id: z.int().nullable(),
    deal_id: z.int().nullable(),
    file_id: z.int().nullable(),
    room_id: z.string().nullable().describe('A realtime token’s room'),
    source_file_id: z.int().nullable().describe('`deal_file.add`: the user file copied'),
    source_user_id: z.int().nullable().describe('`deal_file.add`: that user file’s owner'),
    member_id: z.int().nullable().describe('`member.*`: the member whose membership changed'),
    owner_id: z
      .int()
      .nullable()
      .describe('The owner of a user file the operator deleted (`user_file.delete`)'),
    role: z.enum(ROLES).nullable().describe('`member.add`, `member.change_role`: the role after'),
    previous_role: z.enum(ROLES).nullable().describe('`member.change_role`: the role before'),
    request_id: z.string().nullable().describe('API Gateway’s own, as `apigw-requestid` shows it'),
    source_ip: z.string().nullable(),
    user_agent: z.string().nullable(),
  })
  .meta({ id: 'AccessEntry' });

export type AccessEntryBody = z.output<typeof AccessEntrySchema>;

/** The readers' fields, in their order: the export's columns. */
export const ACCESS_ENTRY_FIELDS = Object.keys(
  AccessEntrySchema.shape,
) as (keyof AccessEntryBody)[];

export const toAccessEntryBody = (entry: AccessEntry): AccessEntryBody => ({
  at: entry.at,
  action: entry.action,
  outcome: entry.outcome,
  status: entry.status ?? null,
  actor: entry.actor,
  user_id: entry.userId ?? null,
  group_id: entry.groupId ?? null,
  deal_id: entry.dealId ?? null,
  file_id: entry.fileId ?? null,
  room_id: entry.roomId ?? null,
  source_file_id: entry.sourceFileId ?? null,
  source_user_id: entry.sourceUserId ?? null,
  member_id: entry.memberId ?? null,
  owner_id: entry.ownerId ?? null,
  role: entry.role ?? null,
  previous_role: entry.previousRole ?? null,
  request_id: entry.requestId ?? null,
  source_ip: entry.sourceIp ?? null,
  user_agent: entry.userAgent ?? null,
});

/** Entries the examples show: an editor's download, and a viewer's refused one. */
export const ACCESS_ENTRY_EXAMPLES: AccessEntryBody[] = [
  {
    at: '2026-06-02T14:05:00.000Z',
    action: 'deal_file.download',
    outcome: 'allowed',
    status: null,
    actor: 'user',
    user_id: 7,
    group_id: 1,
    deal_id: 3,
    file_id: 6,
    room_id: null,
    source_file_id: null,
    source_user_id: null,
    member_id: null,
    owner_id: null,
    role: null,
    previous_role: null,
    request_id: 'Kx3fZjZvoAMEb8Q=',
    source_ip: '203.0.113.9',
    user_agent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5)',
  },
  {
    at: '2026-06-02T14:01:12.000Z',
    action: 'realtime_token.issue',
    outcome: 'allowed',
    status: null,
    actor: 'user',
    user_id: 23,
    group_id: 1,
    deal_id: 3,
    file_id: null,
    room_id: 'production:v1:group:1:deal:3',
    source_file_id: null,
    source_user_id: null,
    member_id: null,
    owner_id: null,
    role: null,
    previous_role: null,
    request_id: 'Kx3e1hSLoAMEbQw=',
    source_ip: '198.51.100.4',
    user_agent: 'python-requests/2.32.3',
  },
];

/**
 * The most a page of entries answers with, counted as Lambda counts an answer (the body is a
 * JSON string in the result, so each escape counts twice): a page stops before the entry that
 * would pass it (its `Link` goes on from there), so a page of long user agents still fits
 * Lambda's 6 MB with room to spare, gzipped or not.
 */
const MAX_PAGE_BYTES = 2_000_000;

/** An entry's share of the answer, as the runtime serializes it, and its comma. */
const resultBytesOf = (body: AccessEntryBody): number =>
  Buffer.byteLength(JSON.stringify(JSON.stringify(body))) - 1;

/**
 * A page's bodies, within MAX_PAGE_BYTES, and the `Link` to the next page: the parameters in
 * `kept` as they were given, and where it starts.
 */
export function entriesPageAnswer(
  path: string,
  kept: Readonly<Record<string, string | number | undefined>>,
  page: TrailPage,
): { readonly bodies: AccessEntryBody[]; readonly headers: Record<string, string> } {
  const bodies: AccessEntryBody[] = [];
  let bytes = 2;
  let next = page.next;
  for (const [n, { entry }] of page.entries.entries()) {
    const body = toAccessEntryBody(entry);
    bytes += resultBytesOf(body);
    const previous = page.entries[n - 1];
    if (bytes > MAX_PAGE_BYTES && previous !== undefined) {
      next = previous.position;
      break;
    }
    bodies.push(body);
  }
  return {
    bodies,
    headers: next === undefined ? {} : pageLink(path, kept, encodeTrailCursor(next)),
  };
}

/** A position as a client carries it: opaque, URL-safe. */
const encodeTrailCursor = (position: TrailPosition): string =>
  Buffer.from(position).toString('base64url');

/**
 * A cursor's position: one this API gave, or any text of the trail key's own characters. A
 * made-up one only starts the page somewhere in the trail the caller may read anyway (the path
 * names the trail); the adapter holds it within the window.
 */
function decodeTrailCursor(cursor: string): TrailPosition | undefined {
  const position = Buffer.from(cursor, 'base64url').toString('utf8');
  return /^[\w#:. -]{1,160}$/.test(position) && encodeTrailCursor(position) === cursor
    ? position
    : undefined;
}

/**
 * A point in time as a filter takes it: an ISO 8601 date and time with its zone (`Z` or an
 * offset), or a date (its midnight, UTC), as the UTC instant it names, with milliseconds;
 * undefined for anything else (a time without a zone names no one instant).
 */
export function readInstant(text: string): string | undefined {
  const readable =
    z.iso.datetime({ offset: true }).safeParse(text).success ||
    z.iso.date().safeParse(text).success;
  const ms = readable ? Date.parse(text) : Number.NaN;
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** `readInstant` as a query parameter: FastAPI's 422 for what it cannot read. */
const instantField = () =>
  z
    .string()
    .transform((text, ctx) => {
      const instant = readInstant(text);
      if (instant !== undefined) return instant;
      const error = 'expected an ISO 8601 date, or a date and time with its time zone';
      ctx.issues.push({
        code: 'custom',
        input: text,
        params: {
          pydantic: {
            type: 'datetime_from_date_parsing',
            msg: `Input should be a valid datetime or date, ${error}`,
            ctx: { error },
          },
        },
      });
      return z.NEVER;
    })
    .meta({ type: 'string', format: 'date-time' });

/** A deal in the path, as the deal routes' examples name it. */
const DealPathSchema = z.object({
  group_id: pyId().meta({ param: { example: 1 } }),
  deal_id: pyId().meta({ param: { example: 3 } }),
});

/** A page of a trail's entries: at most `limit` (1,000 without it), from `cursor`. */
export const TRAIL_PAGE_QUERY = {
  limit: pageLimitField('entries', `a page of ${String(MAX_PAGE_SIZE)}`),
  cursor: cursorField(decodeTrailCursor),
};

/** What a trail's page is chosen by, as the `Link` to the next page keeps them. */
const TrailQuerySchema = z.object({
  ...TRAIL_PAGE_QUERY,
  file_id: pyId().optional().describe('Only entries about this file'),
  user_id: pyId().optional().describe('Only entries of this acting user'),
  action: z.enum(ACCESS_ACTIONS).optional().describe('Only entries of this action'),
  since: instantField().optional().describe('Only entries at or after this time (ISO 8601)'),
  until: instantField().optional().describe('Only entries before this time (ISO 8601)'),
});
type TrailQuery = z.output<typeof TrailQuerySchema>;

/** What GET …/deal/{deal_id}/access validates (see `ApiOperation.request`). */
export const listDealAccessRequest = { path: DealPathSchema, query: TrailQuerySchema };

/** The filter a trail's query names. */
export const trailFilterOf = (query: TrailQuery): TrailFilter => ({
  ...(query.file_id === undefined ? {} : { fileId: query.file_id }),
  ...(query.user_id === undefined ? {} : { userId: query.user_id }),
  ...(query.action === undefined ? {} : { actions: [query.action] }),
  ...(query.since === undefined ? {} : { since: query.since }),
  ...(query.until === undefined ? {} : { until: query.until }),
});

/** The answer to a page: its bodies, and the link to the next page with the same choices. */
export function trailPageAnswer(
  path: string,
  query: TrailQuery,
  page: TrailPage,
): { readonly body: AccessEntryBody[]; readonly headers: Record<string, string> } {
  const { bodies, headers } = entriesPageAnswer(
    path,
    {
      limit: query.limit,
      file_id: query.file_id,
      user_id: query.user_id,
      action: query.action,
      since: query.since,
      until: query.until,
    },
    page,
  );
  return { body: bodies, headers };
}
