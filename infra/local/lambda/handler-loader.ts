import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import type { ServiceAdapters } from '#shared/wiring/service-adapters.ts';
import type { HandlerSettings } from '#shared/config/environment.ts';
import { attributeLogs } from './invocation-logs.ts';
import { REPOSITORY_ROOT } from '../stage/data-folder.ts';
import type { LocalClients } from '../adapters/local-adapters.ts';

export type LambdaHandler = (event: unknown, context: Context) => Promise<unknown>;

/** What the local stage builds every handler on, in place of the deployed adapters. */
export interface LocalWiring {
  readonly adapters: ServiceAdapters;
  readonly settings: HandlerSettings;
  /** The SDK clients under the adapters. */
  readonly clients: LocalClients;
}

/** `handler` is Lambda's entry; `createHandler`, when there, builds it on given adapters. */
interface HandlerModule {
  readonly createHandler?: (adapters: ServiceAdapters, settings: HandlerSettings) => LambdaHandler;
  readonly handler: LambdaHandler;
}

/**
 * Imports handler modules on first use, as a Lambda container does, built on the local
 * stage's adapters; a failed import is tried again next time. What a call logs is its
 * context's function's (invocation-logs.ts), whoever invokes it.
 */
export function createHandlerLoader(
  wiring: LocalWiring,
): (entry: string) => Promise<LambdaHandler> {
  const modules = new Map<string, Promise<LambdaHandler>>();
  const build = (module: HandlerModule): LambdaHandler => {
    const handler = module.createHandler?.(wiring.adapters, wiring.settings) ?? module.handler;
    return (event, context) => attributeLogs(context.functionName, () => handler(event, context));
  };
  return (entry) => {
    const loaded =
      modules.get(entry) ??
      import(pathToFileURL(join(REPOSITORY_ROOT, entry)).href).then(build, (error: unknown) => {
        modules.delete(entry);
        throw error;
      });
    modules.set(entry, loaded);
    return loaded;
  };
}
