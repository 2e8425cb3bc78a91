import { SERVICE_FUNCTIONS } from '#functions/service-functions.ts';
import { createHandlerLoader, type LocalWiring } from './handler-loader.ts';
import { type FunctionSizing, invokeAsLambda } from './lambda-context.ts';

/** A function as the local stage runs it: its handler module, and its deployed sizing. */
export type LocalFunction = FunctionSizing & { readonly entry: string };

/** Every function of the stack with its declared timeout and memory, so it stops as on Lambda. */
export const STACK_FUNCTIONS: ReadonlyMap<string, LocalFunction> = new Map(
  SERVICE_FUNCTIONS.map((fn) => [fn.id, { entry: fn.entry, ...fn.sizing }]),
);

export function stackFunction(functionId: string): LocalFunction {
  const found = STACK_FUNCTIONS.get(functionId);
  if (found === undefined) throw new Error(`No function ${functionId} in SERVICE_FUNCTIONS`);
  return found;
}

/** The stack's function `functionId` on `wiring`, invoked as Lambda runs it for an event source. */
export function stackInvoker(wiring: LocalWiring, functionId: string) {
  const load = createHandlerLoader(wiring);
  const fn = stackFunction(functionId);
  return async (event: unknown): Promise<unknown> => {
    const handler = await load(fn.entry);
    return invokeAsLambda(functionId, fn, (context) => handler(event, context));
  };
}
