import { defineFunction } from '#shared/functions/function-declaration.ts';

/** What API Gateway invokes when no route matches (its `$default` route). */
export const routeNotFoundFunction = defineFunction({
  id: 'RouteNotFound',
  entry: 'functions/route-not-found/handler.ts',
  description: 'Answers requests no route matches, as FastAPI does (404, 405, the slash redirect)',
  sizing: { memoryMb: 256, timeoutSeconds: 5 },
});
