/**
 * The README's table of endpoints, from the routes (`API_ROUTES`): each route, what its
 * operation's summary says it does, and whether it needs a token (`npm run render` writes it).
 */
import { API_ROUTES } from '#functions/service-functions.ts';
import type { ApiOperation } from '#shared/api/operation.ts';
import { code, markdownTable } from './markdown.ts';

/** A list that answers in pages: its answer may name the next page in a `Link` header. */
const paged = (operation: ApiOperation): boolean =>
  operation.responses[200]?.headers?.shape.link !== undefined;

/** What it does, marked `*` when it is not in the contract and `†` when it answers in pages. */
const whatItDoes = (operation: ApiOperation): string =>
  [
    operation.summary,
    ...(operation.origin === 'extension' ? ['\\*'] : []),
    ...(paged(operation) ? ['†'] : []),
  ].join(' ');

export const endpointTable = (): string =>
  markdownTable(
    ['Method and path', 'What it does', 'Token'],
    API_ROUTES.map((route) => [
      code(`${route.method} ${route.path}`),
      whatItDoes(route.operation),
      route.auth === 'jwt' ? 'yes' : 'no',
    ]),
  );
