import type { RoutePattern } from './routes.ts';

export type RouteMatch<R extends RoutePattern> =
  | { readonly kind: 'route'; readonly route: R; readonly params: Record<string, string> }
  | { readonly kind: 'wrong-method'; readonly allowed: readonly string[] }
  | { readonly kind: 'none' };

interface CompiledRoute<R extends RoutePattern> {
  readonly route: R;
  readonly pattern: RegExp;
  readonly names: readonly string[];
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function compile<R extends RoutePattern>(route: R): CompiledRoute<R> {
  const names: string[] = [];
  const source = route.path
    .split(/(\{[^}]+\})/)
    .map((part) => {
      const name = /^\{([^}]+)\}$/.exec(part)?.[1];
      if (name === undefined) return escapeRegExp(part);
      names.push(name);
      return '([^/]+)';
    })
    .join('');
  return { route, pattern: new RegExp(`^${source}$`), names };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Matches like API Gateway: literal segments exactly, `{name}` as one whole segment. A path
 * that matches only under other methods is reported as Starlette reports it: with the method
 * of the first such route alone, which is what FastAPI's `Allow` header names.
 */
export function createRouteMatcher<R extends RoutePattern>(routes: readonly R[]) {
  const compiled = routes.map(compile);
  return (method: string, path: string): RouteMatch<R> => {
    let allowed: string | undefined;
    for (const { route, pattern, names } of compiled) {
      const values = pattern.exec(path);
      if (values === null) continue;
      if (route.method !== method.toUpperCase()) {
        allowed ??= route.method;
        continue;
      }
      const params: Record<string, string> = {};
      names.forEach((name, i) => {
        params[name] = decodeSegment(values[i + 1] ?? '');
      });
      return { kind: 'route', route, params };
    }
    return allowed === undefined ? { kind: 'none' } : { kind: 'wrong-method', allowed: [allowed] };
  };
}
