import { BadRequestError } from './http-errors.ts';

/**
 * A list too large for one answer even compressed: the client asks for pages instead. A 400,
 * as the same request will not succeed again, with FastAPI's `{"detail": …}`.
 */
export const LIST_TOO_LARGE_DETAIL =
  'This list is too large for one answer: ask for it in pages with the query parameters ' +
  '`limit` and `cursor` (each page links the next in its `Link` header), and accept gzip';

export const listTooLarge = (): BadRequestError => new BadRequestError(LIST_TOO_LARGE_DETAIL);
