import type { ApiRoute } from './routes.ts';

export type RouteMatch =
  | { readonly kind: 'route'; readonly route: ApiRoute; readonly params: Record<string, string> }
  | { readonly kind: 'wrong-method'; readonly allowed: readonly string[] }
  | { readonly kind: 'none' };

interface CompiledRoute {
  readonly route: ApiRoute;
  readonly pattern: RegExp;
  readonly names: readonly string[];
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function compile(route: ApiRoute): CompiledRoute {
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

/** Matches like API Gateway: literal segments exactly, `{name}` as one whole segment. */
export function createRouteMatcher(routes: readonly ApiRoute[]) {
  const compiled = routes.map(compile);
  return (method: string, path: string): RouteMatch => {
    const allowed: string[] = [];
    for (const { route, pattern, names } of compiled) {
      const values = pattern.exec(path);
      if (values === null) continue;
      if (route.method !== method.toUpperCase()) {
        allowed.push(route.method);
        continue;
      }
      const params: Record<string, string> = {};
      names.forEach((name, i) => {
        params[name] = decodeSegment(values[i + 1] ?? '');
      });
      return { kind: 'route', route, params };
    }
    return allowed.length > 0 ? { kind: 'wrong-method', allowed } : { kind: 'none' };
  };
}
