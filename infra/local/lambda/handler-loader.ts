import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import type { ServiceAdapters, ServiceSettings } from '#shared/wiring/service-adapters.ts';
import { attributeLogs } from './invocation-logs.ts';
import type { LocalClients } from '../adapters/local-adapters.ts';

export type LambdaHandler = (event: unknown, context: Context) => Promise<unknown>;

/** What the local stage builds every handler on, in place of the deployed adapters. */
export interface LocalWiring {
  readonly adapters: ServiceAdapters;
  readonly settings: ServiceSettings;
  /** The SDK clients under the adapters. */
  readonly clients: LocalClients;
}

/**
 * What a handler module exports: `createHandler`, which the local stage calls with its own
 * adapters, when the function has any; always `handler`, Lambda's entry.
 */
interface HandlerModule {
  readonly createHandler?: (adapters: ServiceAdapters, settings: ServiceSettings) => LambdaHandler;
  readonly handler: LambdaHandler;
}

/**
 * Imports handler modules from the repository on first use, as a Lambda container does on
 * its first invocation, and builds each on the local stage's adapters; a module whose
 * import failed is imported again next time. Every call runs as its context's function, so
 * what it logs is that function's (invocation-logs.ts), whoever invokes it: the gateway, the
 * Invoke API, the finalizer's S3 events or the queue's worker.
 */
export function createHandlerLoader(
  root: string,
  wiring: LocalWiring,
): (entry: string) => Promise<LambdaHandler> {
  const modules = new Map<string, Promise<LambdaHandler>>();
  return (entry) => {
    let loaded = modules.get(entry);
    if (loaded === undefined) {
      loaded = import(pathToFileURL(join(root, entry)).href).then(
        (module: HandlerModule): LambdaHandler => {
          const handler =
            module.createHandler?.(wiring.adapters, wiring.settings) ?? module.handler;
          return (event, context) =>
            attributeLogs(context.functionName, async () => handler(event, context));
        },
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
