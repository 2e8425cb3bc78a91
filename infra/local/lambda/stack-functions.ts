import { SERVICE_FUNCTIONS } from '#functions/service-functions.ts';
import type { FunctionSizing } from './lambda-context.ts';

/** A function as the local stage runs it: its handler module, and its deployed sizing. */
export interface LocalFunction extends FunctionSizing {
  readonly entry: string;
}

/** Every function of the stack with its declared timeout and memory, so it stops as on Lambda. */
export const STACK_FUNCTIONS: ReadonlyMap<string, LocalFunction> = new Map(
  SERVICE_FUNCTIONS.map((fn) => [fn.id, { entry: fn.entry, ...fn.sizing }]),
);

export function stackFunction(functionId: string): LocalFunction {
  const found = STACK_FUNCTIONS.get(functionId);
  if (found === undefined) throw new Error(`No function ${functionId} in SERVICE_FUNCTIONS`);
  return found;
}
