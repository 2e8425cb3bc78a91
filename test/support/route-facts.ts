/**
 * What the tests must be told of a function's routes beyond their declaration, written once,
 * in the function's own file: `test/routes/<function folder>.ts`, whose default export is
 * `routeFacts({ … })`. The tests find each file through the functions list and take from it
 * what they need of a route; one that needs a fact a route's file does not give fails, naming
 * the file to write it in. So a new route adds its own file and edits no test.
 */
import { readdirSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { type RouteKey, SERVICE_FUNCTIONS } from '#functions/service-functions.ts';
import { type ApiRoute, type DocumentedRoute, routeKey } from '#shared/api/routes.ts';
import type { FunctionDeclaration } from '#shared/functions/function-declaration.ts';
import type { ApiResult } from '#shared/http/responses.ts';
import type { DeclaredSituations, SituationKey } from './example-situations.ts';

/** The ids of what a test's caller owns, for a request to name. */
export interface OwnedIds {
  readonly file: number;
  /** A direct upload of theirs, started and not completed. */
  readonly pendingUpload: number;
  readonly notification: string;
  /** A group they edit, its deal, and a file of that deal. */
  readonly group: number;
  readonly deal: number;
  readonly dealFile: number;
}

/** A request to a route, as its facts give it. */
interface RouteRequest {
  /** Its path, where it is not the route's with the caller's ids in it. */
  readonly path?: string;
  readonly json?: Readonly<Record<string, unknown>>;
  readonly form?: { readonly contentType: string; readonly body: Buffer };
}

/** What a refused request gets. */
export interface Refusal {
  readonly status: number;
  readonly body: unknown;
}

/** What the tests must be told of one route; each test names the facts it reads. */
interface RouteFact {
  /**
   * A request its caller is granted on what they own. The authorization matrix sends it with
   * forged tokens and as another user (test/hardening/auth-matrix.test.ts), the fuzz swaps its
   * JSON body's fields for junk (test/hardening/fuzz.test.ts). Needed by a route that takes a
   * body, or a path parameter that is none of `OwnedIds`.
   */
  readonly request?: (own: OwnedIds) => RouteRequest;
  /**
   * What another user gets for `request`, the owner's ids in its body. Needed by a route that
   * takes ids in its body: one with ids in its path answers FastAPI's 404, one with none
   * answers from the caller's own area (test/hardening/auth-matrix.test.ts).
   */
  readonly answerToIntruder?: (own: OwnedIds) => Refusal;
  /**
   * The largest body its success answers with, within the domain's limits; a list's largest
   * item, of which the test makes the largest page (test/unit/largest-answers.test.ts).
   */
  readonly largestBody?: () => unknown;
  /**
   * Its largest whole success answer, where that is no JSON body the test can shape: a signed
   * token, a key set, a document (taken instead of `largestBody`).
   */
  readonly largestAnswer?: () => Promise<ApiResult>;
}

/** A function's facts, as its file declares them. */
export interface DeclaredRouteFacts<
  Route extends string = RouteKey,
  Situation extends string = SituationKey,
> {
  /** Each route's facts, by its route key. */
  readonly routes?: Partial<Record<Route, RouteFact>>;
  /**
   * The situations that make its routes' examples real answers, by the answer each gives
   * (test/e2e/openapi-examples.test.ts).
   */
  readonly examples?: DeclaredSituations<Situation>;
}

/** A function's file's default export; the tests check it is one. */
class RouteFacts {
  readonly declared: DeclaredRouteFacts<string, string>;
  constructor(declared: DeclaredRouteFacts<string, string>) {
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
interface FunctionFacts {
  readonly fn: FunctionDeclaration;
  readonly file: string;
  readonly declared: DeclaredRouteFacts<string, string>;
}

/** Every function's facts, and each route's. */
export interface LoadedRouteFacts {
  /** Each function's facts that has a file, in the functions list's order. */
  readonly functions: readonly FunctionFacts[];
  /** What a route's function's file says of it: nothing, where it says nothing. */
  of(route: ApiRoute): RouteFact;
  /** A fact `route` needs that its function's file does not give, as the error to throw. */
  missing(route: ApiRoute, fact: string): Error;
  /**
   * The route's `request` on what `own` holds, its path the route's with those ids unless the
   * facts give one; its JSON body or form wherever the route takes one.
   */
  requestOf(route: DocumentedRoute, own: OwnedIds): RouteRequest & { readonly path: string };
}

/** A route's path with the caller's ids in it: a file of theirs, or of their group's deal. */
const pathWith = (route: ApiRoute, own: OwnedIds): string =>
  route.path
    .replace('{group_id}', String(own.group))
    .replace('{deal_id}', String(own.deal))
    .replace('{file_id}', String(route.path.includes('/group/') ? own.dealFile : own.file))
    .replace('{notification_id}', own.notification);

async function load(): Promise<LoadedRouteFacts> {
  const folder = new URL('../routes/', import.meta.url);
  const present = new Set(readdirSync(folder).map((name) => `${FOLDER}/${name}`));
  const files = new Set(SERVICE_FUNCTIONS.map(routeFileOf)).add(SHARED_ANSWERS_FILE);
  for (const file of present) {
    if (!files.has(file)) throw new Error(`${file} is no function's file of route facts`);
  }
  const loaded: FunctionFacts[] = [];
  for (const fn of SERVICE_FUNCTIONS as readonly FunctionDeclaration[]) {
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
    const own = new Set((fn.routes ?? []).map(routeKey));
    for (const key of Object.keys(facts.declared.routes ?? {})) {
      if (!own.has(key)) {
        throw new Error(`${file} gives facts of ${key}, none of ${fn.id}'s routes`);
      }
    }
    loaded.push({ fn, file, declared: facts.declared });
  }
  const of = (route: ApiRoute): RouteFact =>
    loaded.find(({ fn }) => fn.id === route.functionId)?.declared.routes?.[routeKey(route)] ?? {};
  const missing = (route: ApiRoute, fact: string) =>
    new Error(
      `${routeKey(route)}: write ${fact} in ${routeFileOf(route)}, its function's route facts`,
    );
  return {
    functions: loaded,
    of,
    missing,
    requestOf: (route, own) => {
      const given = of(route).request?.(own) ?? {};
      const { body, form } = route.operation.request;
      if (body !== undefined && given.json === undefined) {
        throw missing(route, 'a JSON body its caller is granted (request)');
      }
      if (form !== undefined && given.form === undefined) {
        throw missing(route, 'a form its caller is granted (request)');
      }
      const path = given.path ?? pathWith(route, own);
      const parameter = /\{\w+\}/.exec(path)?.[0];
      if (parameter !== undefined) {
        throw missing(route, `a path with its ${parameter} filled in (request)`);
      }
      return { ...given, path };
    },
  };
}

let loading: Promise<LoadedRouteFacts> | undefined;

/**
 * Every function's facts, from the files there are: a function without one declares nothing.
 * Loaded once per module graph, however many tests ask.
 */
export function loadRouteFacts(): Promise<LoadedRouteFacts> {
  loading ??= load();
  return loading;
}
