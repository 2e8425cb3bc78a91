import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';

export type LambdaHandler = (event: unknown, context: Context) => Promise<unknown>;

/**
 * Imports handler modules from the repository on first use, as a Lambda container does on
 * its first invocation; a module whose import failed is imported again next time.
 */
export function createHandlerLoader(root: string): (entry: string) => Promise<LambdaHandler> {
  const modules = new Map<string, Promise<LambdaHandler>>();
  return (entry) => {
    let loaded = modules.get(entry);
    if (loaded === undefined) {
      loaded = import(pathToFileURL(join(root, entry)).href).then(
        (module: { handler: LambdaHandler }) => module.handler,
        (error: unknown) => {
          modules.delete(entry);
          throw error;
        },
      );
      modules.set(entry, loaded);
    }
    return loaded;
  };
}
