/**
 * Every route's largest valid answer, against Lambda's 6 MB: each route's file of facts
 * (test/routes/<function folder>.ts) gives its largest body, built from the domain's own limits
 * with the worst text JSON can hold (test/support/largest-bodies.ts), or its largest whole
 * answer (a signed token, a key set, the real handler's document). A list pages: its largest
 * page is measured, and an unpaged list that would not fit is refused
 * (test/unit/answer-size.test.ts). The worst 422 of each JSON route is held by
 * test/hardening/body-limits.test.ts.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { API_ROUTES } from '#functions/service-functions.ts';
import { type DocumentedRoute, routeKey } from '#shared/api/routes.ts';
import { LAMBDA_MAX_RESPONSE_BYTES, resultBytes } from '#shared/http/answer-size.ts';
import { MAX_PAGE_SIZE } from '#shared/http/list-page.ts';
import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { loadRouteFacts, routeFileOf } from '#test/support/route-facts.ts';

const FACTS = await loadRouteFacts();

const PAGE_LINK = `<?limit=${String(MAX_PAGE_SIZE)}&cursor=${'c'.repeat(60)}>; rel="next"`;

/** Each route's largest answers, one per success it declares; none for an empty one. */
function largestAnswers(route: DocumentedRoute): Promise<ApiResult>[] {
  const { largestAnswer, largestBody } = FACTS.of(route);
  if (largestAnswer !== undefined) return [largestAnswer()];
  const answers = Object.entries(route.operation.responses)
    .filter(([status]) => Number(status) < 300)
    .flatMap(([status, answer]) =>
      (answer.content ?? []).map(({ schema }) => {
        if (largestBody === undefined) {
          throw FACTS.missing(route, `the largest body of its ${status} (largestBody)`);
        }
        const page = schema instanceof z.ZodArray ? (schema.element as z.ZodType) : undefined;
        const body = largestBody();
        // One its answer's schema describes (a list's, one item of it).
        (page ?? schema).parse(body);
        return Promise.resolve(
          page === undefined
            ? jsonResponse(Number(status), body)
            : jsonResponse(Number(status), Array(MAX_PAGE_SIZE).fill(body), {
                link: `<${route.path}${PAGE_LINK}`,
              }),
        );
      }),
    );
  if (largestBody !== undefined && answers.length === 0) {
    throw new Error(`${routeKey(route)} answers no body, yet ${routeFileOf(route)} gives one`);
  }
  return answers;
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
