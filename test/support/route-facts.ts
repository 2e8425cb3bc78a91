/**
 * What the tests must be told of a function's routes beyond their declaration, written once,
 * in the function's own file: `test/routes/<function folder>.ts`, whose default export is
 * `routeFacts({ … })`. The tests find each file through the functions list and take from it
 * what they need of a route; one that needs a fact a route's file does not give fails, naming
 * the file to write it in. So a new route adds its own file and edits no test.
 */
import { readdirSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { SERVICE_FUNCTIONS } from '#functions/service-functions.ts';
import type { FunctionDeclaration } from '#shared/functions/function-declaration.ts';
import type { DeclaredSituations, SituationKey } from './example-situations.ts';

/** A function's facts, as its file declares them. */
export interface DeclaredRouteFacts<Key extends string = SituationKey> {
  /**
   * The situations that make its routes' examples real answers, by the answer each gives
   * (test/e2e/openapi-examples.test.ts).
   */
  readonly examples?: DeclaredSituations<Key>;
}

/** A function's file's default export; the tests check it is one. */
export class RouteFacts {
  readonly declared: DeclaredRouteFacts<string>;
  constructor(declared: DeclaredRouteFacts<string>) {
    this.declared = declared;
  }
}

/** A function's file's default export, its keys checked against the routes' keys. */
export const routeFacts = (declared: DeclaredRouteFacts) => new RouteFacts(declared);

const FOLDER = 'test/routes';

/** The answers every route shares, whose examples' situations are made there too. */
export const SHARED_ANSWERS_FILE = `${FOLDER}/shared-answers.ts`;

/** A function's file: the functions list names each function's folder. */
export const routeFileOf = (fn: Pick<FunctionDeclaration, 'entry'>): string =>
  `${FOLDER}/${basename(dirname(fn.entry))}.ts`;

/** One function's facts, with the file that declares them. */
export interface FunctionFacts {
  readonly fn: FunctionDeclaration;
  readonly file: string;
  readonly declared: DeclaredRouteFacts<string>;
}

async function load(): Promise<readonly FunctionFacts[]> {
  const folder = new URL('../routes/', import.meta.url);
  const present = new Set(readdirSync(folder).map((name) => `${FOLDER}/${name}`));
  const files = new Set(SERVICE_FUNCTIONS.map(routeFileOf)).add(SHARED_ANSWERS_FILE);
  for (const file of present) {
    if (!files.has(file)) throw new Error(`${file} is no function's file of route facts`);
  }
  const loaded: FunctionFacts[] = [];
  for (const fn of SERVICE_FUNCTIONS) {
    const file = routeFileOf(fn);
    if (!present.has(file)) continue;
    const module: unknown = await import(new URL(basename(file), folder).href);
    const facts =
      typeof module === 'object' && module !== null && 'default' in module
        ? module.default
        : undefined;
    if (!(facts instanceof RouteFacts)) {
      throw new Error(`${file}: its default export is not routeFacts({ … })`);
    }
    loaded.push({ fn, file, declared: facts.declared });
  }
  return loaded;
}

let loading: Promise<readonly FunctionFacts[]> | undefined;

/**
 * Every function's facts that has a file, in the functions list's order; a function without
 * one declares nothing. Loaded once per module graph, however many tests ask.
 */
export function loadRouteFacts(): Promise<readonly FunctionFacts[]> {
  loading ??= load();
  return loading;
}
