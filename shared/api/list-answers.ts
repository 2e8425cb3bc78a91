import * as z from 'zod';
import { LIST_TOO_LARGE_DETAIL } from '../http/list-too-large.ts';
import { MAX_FILES_IN_ONE_ANSWER, MAX_PAGE_SIZE } from '../http/list-page.ts';
import { detailAnswer, type ResponseDoc } from './operation.ts';

/**
 * What a list answer may carry beyond its body: the next page, and its compression. The
 * example is the link a page of 20 from `listPath` comes with; `when`, when the link is sent.
 */
export const listHeaders = (
  listPath: string,
  when = 'With `limit` or `cursor`, while more files follow',
  cursor = 'MjAyNi0wNi0wMVQwOTozMDowMC4wMDBaIzQy',
) =>
  z.object({
    link: z
      .string()
      .optional()
      .describe(`${when}: the next page (RFC 8288)`)
      .meta({ examples: [`<${listPath}?limit=20&cursor=${cursor}>; rel="next"`] }),
    'content-encoding': z
      .literal('gzip')
      .optional()
      .describe('When the request accepts gzip (`Accept-Encoding: gzip`)'),
  });

/** How a list route pages and compresses, for its description. */
export const LIST_PAGING =
  ' Newest first; ids break ties. Without `limit` or `cursor` the answer is every file in one ' +
  `array; with either, one page (at most \`limit\`, 1 to ${String(MAX_PAGE_SIZE)}, default ` +
  `${String(MAX_PAGE_SIZE)}), and a \`Link: <…>; rel="next"\` header while more follow. The ` +
  'answer is gzipped when the request accepts it.';

/**
 * `100,000`: grouped by hand, since `toLocaleString` loads the locale data at import, which
 * costs every function that declares a list route about 10 ms of its cold start.
 */
const withThousands = (count: number): string =>
  String(count).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** A list that will not fit one answer even compressed. */
export const LIST_TOO_LARGE: ResponseDoc = detailAnswer(
  `The list is too large for one answer (over ${withThousands(MAX_FILES_IN_ONE_ANSWER)} ` +
    'files, or Lambda’s 6 MB even gzipped): ask for pages',
  LIST_TOO_LARGE_DETAIL,
);
