import { type Environment, type EnvironmentName, readEnvironment } from '../config/environment.ts';

/**
 * A handler module's Lambda entry: on the container's first invocation (its cold start) it
 * reads and checks the function's variables, builds the deployed adapters and the handler,
 * and keeps that handler for every later invocation. Nothing runs at import, so the local
 * stage can import the same module and build the handler on its own adapters instead. A
 * build that fails (a variable missing) fails the invocation, and the next one tries again.
 */
export function lambdaEntry<const K extends EnvironmentName, E, C, R>(
  names: readonly K[],
  build: (env: Pick<Environment, K>) => (event: E, context: C) => Promise<R>,
): (event: E, context: C) => Promise<R> {
  let built: ((event: E, context: C) => Promise<R>) | undefined;
  return (event, context) => {
    built ??= build(readEnvironment(names));
    return built(event, context);
  };
}
