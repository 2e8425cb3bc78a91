import * as z from 'zod';
import type { ListOptions, ListPosition, Page } from '../domain/page.ts';
import { listTooLarge } from '../http/list-too-large.ts';
import { pyBoundedInt } from '../http/fastapi/pydantic-fields.ts';

/**
 * Paging of the list routes (our extension). Without `limit` or `cursor` a list answers every
 * file in one array, as the contract has it; with either, one page, and a `Link` header to
 * the next while there is one. The body stays the contract's bare array either way.
 */
export const MAX_PAGE_SIZE = 1000;

/**
 * The most files an unpaged answer reads. Gzipped, that many fit Lambda's 6 MB with room to
 * spare; beyond it the read alone would cost a function more memory and time than an answer
 * is worth (and some accounts past it could not fit even gzipped), so the client pages.
 */
export const MAX_FILES_IN_ONE_ANSWER = 100_000;

const CREATED_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const POSITION = /^(.{24})#([1-9]\d{0,15})$/s;

/** A position as the client carries it: opaque, URL-safe. */
const encodeCursor = (position: ListPosition): string =>
  Buffer.from(`${position.createdAt}#${String(position.id)}`).toString('base64url');

function decodeCursor(cursor: string): ListPosition | undefined {
  const match = POSITION.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const [, createdAt = '', digits = ''] = match ?? [];
  const id = Number(digits);
  const position = { createdAt, id };
  // Only a cursor this API gave: one that says anything else would page from nowhere.
  return CREATED_AT.test(createdAt) && Number.isSafeInteger(id) && encodeCursor(position) === cursor
    ? position
    : undefined;
}

/**
 * A list's `cursor` parameter: the position `decode` reads from it, or a 422 for one this API
 * did not give.
 */
export const cursorField = <Position>(decode: (cursor: string) => Position | undefined) =>
  z
    .string()
    .transform((cursor, ctx) => {
      const position = decode(cursor);
      if (position !== undefined) return position;
      ctx.issues.push({
        code: 'custom',
        input: cursor,
        params: {
          pydantic: {
            type: 'value_error',
            msg: 'Value error, not a cursor this API gave; start again without one',
            ctx: { error: {} },
          },
        },
      });
      return z.NEVER;
    })
    .meta({ type: 'string' })
    .optional()
    .describe(
      'Where the page starts: the `cursor` of the `Link: <…>; rel="next"` header the previous ' +
        'page came with',
    );

/** A list's `limit` parameter: at most this many of what it lists (`unpaged`: without it). */
export const pageLimitField = (what: string, unpaged: string) =>
  pyBoundedInt({ gt: 0, le: MAX_PAGE_SIZE })
    .optional()
    .describe(
      `Answer one page of at most this many ${what} (1 to ${String(MAX_PAGE_SIZE)}); ` +
        `without \`limit\` or \`cursor\`, ${unpaged}`,
    );

export const ListPageQuerySchema = z.object({
  limit: pageLimitField('files', 'every file'),
  cursor: cursorField(decodeCursor),
});

export type ListPageQuery = z.output<typeof ListPageQuerySchema>;

const isPaged = (query: ListPageQuery): boolean =>
  query.limit !== undefined || query.cursor !== undefined;

/**
 * What a list route asks its use case for: one page, or every file up to
 * MAX_FILES_IN_ONE_ANSWER (a page of that size, so that the read stops there).
 */
export function listOptionsOf(query: ListPageQuery, signal?: AbortSignal): ListOptions {
  const page = isPaged(query)
    ? { limit: query.limit ?? MAX_PAGE_SIZE, ...(query.cursor && { after: query.cursor }) }
    : { limit: MAX_FILES_IN_ONE_ANSWER };
  return { page, ...(signal === undefined ? {} : { signal }) };
}

/**
 * The `Link` header to the next page (RFC 8288), relative to the request's own path, with the
 * same `limit`; none on the last page. An unpaged answer with files left over is refused as
 * too large for one answer.
 */
export function nextPageLink(
  path: string,
  query: ListPageQuery,
  page: Page<unknown>,
): Record<string, string> {
  if (page.next === undefined) return {};
  if (!isPaged(query)) throw listTooLarge();
  return pageLink(path, { limit: query.limit }, encodeCursor(page.next));
}

/**
 * The `Link` header to a list's next page (RFC 8288), relative to the request's own path: the
 * parameters that chose this page (`limit`, a list's filters) as they were given, then where
 * the next page starts.
 */
export function pageLink(
  path: string,
  keep: Readonly<Record<string, string | number | undefined>>,
  cursor: string,
): Record<string, string> {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(keep)) {
    if (value !== undefined) params.append(name, String(value));
  }
  params.append('cursor', cursor);
  return { link: `<${path}?${params.toString()}>; rel="next"` };
}
