/**
 * What a function is, said once beside its handler (`functions/<name>/function.ts`): its
 * routes and their documentation, its sizing, the resources it may reach with exactly the
 * calls its code makes, and the plain settings it reads. Its environment follows from these:
 * a resource brings the variable that names it, a route behind the authorizer the caller's
 * claim, a route whose request holds a field a setting bounds that setting, so a grant without
 * its variable, or a variable without its grant, cannot be written.
 * Data and types only: the CDK stack, the local stage and the docs read the same declaration.
 */
import {
  FILES_BY_CREATION_INDEX,
  IDEMPOTENT_OPERATIONS,
  idempotencyPartitions,
  PARTITIONS,
} from '../storage/keys.ts';
import type { TrailIndex } from '../access-trail/adapters/access-entry-item.ts';
import type { ApiOperation } from '../api/operation.ts';
import type { HttpMethod } from '../api/routes.ts';
import type { EnvironmentName } from '../config/environment.ts';
import { settingsJudging, type SettingsJudging } from '../http/setting-bound-fields.ts';

/** DynamoDB item actions, as IAM names them. A transaction needs the action of each item. */
export type ItemAction =
  | 'BatchGetItem'
  | 'ConditionCheckItem'
  | 'DeleteItem'
  | 'GetItem'
  | 'PutItem'
  | 'Query'
  | 'UpdateItem';

export type ObjectAction =
  | 's3:GetObject'
  /** Reads one version by its id: a GET, or a copy's source, that names its `versionId`. */
  | 's3:GetObjectVersion'
  | 's3:PutObject'
  | 's3:DeleteObject'
  /** Deletes one version for good: in a versioned bucket, the only delete that is permanent. */
  | 's3:DeleteObjectVersion';

/**
 * Where a grant on the table reaches: a kind of partition (`PARTITIONS`), or an idempotent
 * operation's records (`IDEMPOTENT_OPERATIONS`), by its name there.
 */
export type Partition = keyof typeof PARTITIONS | keyof typeof IDEMPOTENT_OPERATIONS;

/** The partition key pattern each name stands for (IAM `dynamodb:LeadingKeys`). */
export const PARTITION_KEYS = Object.fromEntries([
  ...Object.entries(PARTITIONS).map(([name, { pattern }]) => [name, pattern]),
  ...Object.entries(IDEMPOTENT_OPERATIONS).map(([name, operation]) => [
    name,
    idempotencyPartitions(operation).pattern,
  ]),
]) as Readonly<Record<Partition, string>>;

/** The key prefixes object grants reach. */
type ObjectPrefix = 'users/' | 'groups/' | 'uploads/';

/** Item actions on one kind of partition, of the table or of one index. */
export interface ItemGrant {
  readonly items: readonly ItemAction[];
  readonly in: Partition;
  /** The index the calls read, instead of the table. */
  readonly index?: typeof FILES_BY_CREATION_INDEX;
  /**
   * Reads the key attributes alone (IAM `dynamodb:Attributes`): whether an item is there,
   * nothing of what it holds. The call names them in its `ProjectionExpression`.
   */
  readonly keysOnly?: true;
  /** Why the code makes a call the reader might not expect (shown in docs/deploying.md). */
  readonly why?: string;
}

/**
 * Calls on the access trail's table, of the table or of one index. Create-only by type: no
 * function may update, delete or batch-write an entry (docs/security.md).
 */
export interface TrailGrant {
  readonly items: readonly ('PutItem' | 'Query')[];
  /** The index the calls read, instead of the table. */
  readonly index?: TrailIndex;
  readonly why?: string;
}

export type BucketGrant =
  | {
      readonly objects: readonly ObjectAction[];
      readonly under: ObjectPrefix;
      readonly why?: string;
    }
  /** s3:ListBucket, so a missing object is a 404 (not a 403) to HeadObject. */
  | { readonly missingObjectsAsNotFound: true }
  /** s3:ListBucketVersions, for listings under these prefixes only. */
  | { readonly listVersionsUnder: readonly ('users/' | 'uploads/')[] };

/** At least one grant: a resource named without a grant would be a variable without one. */
type Grants<G> = readonly [G, ...G[]];

/**
 * The resources a function may reach, each with what it may do there. Each brings the
 * variable that names it to the function (`RESOURCE_VARIABLES`).
 */
export interface FunctionResources {
  readonly table?: Grants<ItemGrant>;
  /** The access trail's own table. */
  readonly trail?: Grants<TrailGrant>;
  /**
   * The access trail's digest bucket. `seal`: list the digests, read them and write new ones
   * (never replace one: the bucket refuses a put without `If-None-Match`).
   */
  readonly trailDigests?: 'seal';
  readonly bucket?: Grants<BucketGrant>;
  /**
   * `send`: sqs:SendMessage. `consume`: receive, delete and put off its messages, which the
   * worker's event source grants where the stack wires it (`NotificationWorker`).
   */
  readonly notificationQueue?: 'send' | 'consume';
  /** Where the worker sets aside the notifications it gave up on. */
  readonly notificationDeadLetters?: 'send';
  /** The realtime signing keys; a reader starts only once the first key exists. */
  readonly realtimeKeys?: 'read' | 'read-write';
  /** The chat channel's webhook URL. */
  readonly chatWebhook?: 'read';
}

/** The variable each resource brings: what the function finds it by. */
const RESOURCE_VARIABLES = {
  table: 'TABLE_NAME',
  trail: 'TRAIL_TABLE_NAME',
  trailDigests: 'TRAIL_DIGEST_BUCKET_NAME',
  bucket: 'BUCKET_NAME',
  notificationQueue: 'NOTIFY_QUEUE_URL',
  notificationDeadLetters: 'NOTIFY_DLQ_URL',
  realtimeKeys: 'REALTIME_KEYS_SECRET_ARN',
  chatWebhook: 'CHAT_WEBHOOK_SECRET_ARN',
} as const satisfies Readonly<Record<keyof FunctionResources, EnvironmentName>>;

export type ResourceName = keyof typeof RESOURCE_VARIABLES;

export const RESOURCE_NAMES = Object.keys(RESOURCE_VARIABLES) as readonly ResourceName[];

/** Every function with a route behind the authorizer reads the caller's id from this claim. */
const CALLER_VARIABLE = 'USER_ID_CLAIM';

/** A variable that names no resource and no caller: a plain value the stage sets. */
type SettingName = Exclude<
  EnvironmentName,
  (typeof RESOURCE_VARIABLES)[ResourceName] | typeof CALLER_VARIABLE
>;

/** One route of a function: API Gateway's route, and its entry in the OpenAPI document. */
type RouteDeclaration = {
  readonly method: HttpMethod;
  /** The API Gateway route path; `{name}` is one path segment. */
  readonly path: string;
  /** Names the route among its function's routes when it has several (its construct id). */
  readonly routeName?: string;
  /** The handler validates with `operation.request`, so the document describes what it checks. */
  readonly operation: ApiOperation;
} & (
  | { readonly auth: 'jwt' }
  /** Public: said, with its reason, in the deployed template's checks. */
  | { readonly auth: 'none'; readonly publicBecause: string }
);

export interface FunctionSpec extends FunctionResources {
  /** Stable id: the construct id on AWS, the name in local logs and `npm run invoke`. */
  readonly id: string;
  /** The handler module, relative to the repository root; it exports `handler`. */
  readonly entry: string;
  /** Said in the console; a route function is described by its routes when absent. */
  readonly description?: string;
  readonly routes?: readonly RouteDeclaration[];
  /**
   * Files from the repository the function reads at run time, copied into its bundle at the
   * same relative path (so `import.meta.resolve` finds them there as it does locally).
   */
  readonly bundledFiles?: readonly string[];
  readonly sizing: {
    /** MB; it also sets the function's share of CPU. */
    readonly memoryMb: number;
    /** Route functions answer within API Gateway's 30 s. */
    readonly timeoutSeconds: number;
  };
  /** Whether its errors and throttles alarm; a deploy-time function's failure fails the deploy. */
  readonly alarms?: false;
  /** Plain values it reads, which no resource or route brings. */
  readonly settings?: readonly SettingName[];
}

type ElementOf<T> = NonNullable<T> extends readonly (infer E)[] ? E : never;

type CallerOf<S> = S extends { readonly routes?: infer Routes }
  ? Extract<ElementOf<Routes>, { readonly auth: 'jwt' }> extends never
    ? never
    : typeof CALLER_VARIABLE
  : never;

type ResourceVariablesOf<S> = {
  [K in ResourceName]: K extends keyof S
    ? S[K] extends undefined
      ? never
      : (typeof RESOURCE_VARIABLES)[K]
    : never;
}[ResourceName];

type SettingsOf<S> = S extends { readonly settings?: infer Settings } ? ElementOf<Settings> : never;

type JudgingRoute<Route> = Route extends { readonly operation: { readonly request: infer R } }
  ? SettingsJudging<R>
  : never;

/** The settings that bound a field of one of its routes' requests. */
type JudgingOf<S> = S extends { readonly routes?: infer Routes }
  ? JudgingRoute<ElementOf<Routes>>
  : never;

/** The variables a declaration brings, as types: what its Lambda entry may read. */
type VariablesOf<S> = CallerOf<S> | ResourceVariablesOf<S> | SettingsOf<S> | JudgingOf<S>;

export type FunctionDeclaration<S extends FunctionSpec = FunctionSpec> = S & {
  /** Exactly what the function reads: its entry reads these, the stack sets these. */
  readonly variables: readonly VariablesOf<S>[];
};

/**
 * The variables a spec brings, in a stable order: the caller's, the resources', the settings,
 * then those that judge its requests.
 */
function variablesOf(spec: FunctionSpec): EnvironmentName[] {
  const caller: EnvironmentName[] = spec.routes?.some((route) => route.auth === 'jwt')
    ? [CALLER_VARIABLE]
    : [];
  const resources: EnvironmentName[] = RESOURCE_NAMES.filter(
    (name) => spec[name] !== undefined,
  ).map((name) => RESOURCE_VARIABLES[name]);
  const judging = (spec.routes ?? []).flatMap((route) => settingsJudging(route.operation.request));
  return [...new Set([...caller, ...resources, ...(spec.settings ?? []), ...judging])];
}

/** A function's declaration, with the variables it reads derived from what it declares. */
export function defineFunction<const S extends FunctionSpec>(spec: S): FunctionDeclaration<S> {
  return { ...spec, variables: variablesOf(spec) as VariablesOf<S>[] };
}

/** An Idempotency-Key's records of one operation: put, read, settle, drop. */
export const idempotencyRecords = (operation: keyof typeof IDEMPOTENT_OPERATIONS): ItemGrant => ({
  items: ['PutItem', 'GetItem', 'UpdateItem', 'DeleteItem'],
  in: operation,
});
