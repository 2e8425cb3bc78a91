import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { API_ROUTES, SERVICE_FUNCTIONS } from '#functions/service-functions.ts';
import { REPOSITORY_ROOT } from '#infra/local/stage/data-folder.ts';
import { routeKey } from '#shared/api/routes.ts';
import type { FunctionDeclaration } from '#shared/functions/function-declaration.ts';

describe('the list of functions', () => {
  it('declares every handler module once, beside it', () => {
    const handlers = readdirSync(join(REPOSITORY_ROOT, 'functions'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `functions/${entry.name}/handler.ts`)
      .sort();
    expect(SERVICE_FUNCTIONS.map((fn) => fn.entry).sort()).toEqual(handlers);
  });

  it('names each function and each route once', () => {
    const ids = SERVICE_FUNCTIONS.map((fn) => fn.id);
    expect(new Set(ids).size).toBe(ids.length);
    const keys = API_ROUTES.map(routeKey);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('names the routes of a function that has several', () => {
    for (const fn of SERVICE_FUNCTIONS as readonly FunctionDeclaration[]) {
      const routes = fn.routes ?? [];
      if (routes.length < 2) continue;
      const names = routes.map((route) => route.routeName);
      expect(
        names.every((name) => name !== undefined),
        fn.id,
      ).toBe(true);
      expect(new Set(names).size, fn.id).toBe(names.length);
    }
  });
});
