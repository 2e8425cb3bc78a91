import * as z from 'zod';

/**
 * Every environment variable a function reads: its rule and default (the schema), its one
 * description (`.describe`: what it means, and its rule in words), and its role: where a
 * deployed function's value comes from and whether the local stage may override it. This and
 * the functions list are the only places a setting is declared: the stages' settings
 * (infra/stages.ts), the stack's environment, the local stage's variables, SAM's env file and
 * the docs' tables (`npm run render`) are derived from here, and a variable one of them cannot
 * place fails to compile there. A bad value stops the container at cold start. This module is
 * the only one that reads `process.env`.
 */

/**
 * Where a deployed function's value of a variable comes from, and whether `npm start` reads it
 * from its own environment (`local`).
 */
interface VariableRole {
  /**
   * `setting`: the stage setting named after it in camelCase (MAX_BYTES_PER_USER is
   * `maxBytesPerUser`), which an operator sets per stage and which starts from the default
   * here; `default`: the default here on every deployed stage; `resource`: the name of one of
   * the stage's resources; `stage`: a fact of the stage itself (its name, its URL).
   */
  readonly source: 'setting' | 'default' | 'resource' | 'stage';
  /** The local stage reads it from its own environment (`npm start`, SAM's env file). */
  readonly local?: true;
  /**
   * It bounds a request field (shared/http/setting-bound-fields.ts): each function whose
   * request has the field reads it, and so does the one that serves the OpenAPI document,
   * which states its value. It needs a default, which the fields are declared with.
   */
  readonly judgesRequests?: true;
}

const variable = <const S extends z.ZodType, const R extends VariableRole>(schema: S, role: R) => ({
  schema,
  ...role,
});

/** The longest a realtime token may live, a day: the JWKS keeps a retired key this long. */
export const REALTIME_TOKEN_MAX_SECONDS = 86_400;

/**
 * A number as the docs write it, `86,400`: grouped by hand, as `toLocaleString` loads the
 * locale data, about 10 ms of every function's cold start (as in shared/api/list-answers.ts).
 */
const count = (value: number): string => String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

const positiveSeconds = z.coerce.number().positive();

const VARIABLES = {
  STAGE: variable(
    z
      .string()
      .regex(/^[a-z][a-z0-9-]*$/)
      .describe(
        'The stage the function belongs to (`production`, `development`, `local`), and the first segment of its room ids: a lower-case letter, then lower-case letters, digits or hyphens',
      ),
    { source: 'stage' },
  ),
  TABLE_NAME: variable(z.string().min(1).describe("The service's single DynamoDB table"), {
    source: 'resource',
  }),
  TRAIL_TABLE_NAME: variable(
    z
      .string()
      .min(1)
      .describe("The access trail's DynamoDB table: an entry for every access and change"),
    { source: 'resource' },
  ),
  TRAIL_DIGEST_BUCKET_NAME: variable(
    z
      .string()
      .min(1)
      .describe("The access trail's digests: a bucket of their own, each locked for the retention"),
    { source: 'resource' },
  ),
  BUCKET_NAME: variable(
    z
      .string()
      .min(1)
      .describe("The service's bucket: users' files, deal files and staged direct uploads"),
    { source: 'resource' },
  ),
  USER_ID_CLAIM: variable(
    z.string().min(1).default('sub').describe("The JWT claim that holds the caller's user id"),
    { source: 'setting', local: true },
  ),
  REALTIME_ISSUER: variable(
    z.url().describe("Realtime tokens' `iss`: the stage's public base URL"),
    { source: 'stage' },
  ),
  REALTIME_AUDIENCE: variable(
    z.string().min(1).default('realtime').describe("Realtime tokens' `aud`"),
    { source: 'setting', local: true },
  ),
  REALTIME_TOKEN_SECONDS: variable(
    z.coerce
      .number()
      .int()
      .min(1)
      .max(REALTIME_TOKEN_MAX_SECONDS)
      .default(3600)
      .describe(
        `Realtime tokens' lifetime: whole seconds, 1 to ${count(REALTIME_TOKEN_MAX_SECONDS)} (a day)`,
      ),
    { source: 'setting', local: true },
  ),
  REALTIME_KEYS_SECRET_ARN: variable(
    z.string().startsWith('arn:').describe('The secret holding the realtime signing keys (an ARN)'),
    { source: 'resource' },
  ),
  NOTIFY_QUEUE_URL: variable(z.url().describe('The submission-notification queue (a URL)'), {
    source: 'resource',
  }),
  NOTIFY_DLQ_URL: variable(
    z
      .url()
      .describe('Its dead-letter queue, where the worker sets aside what it gave up on (a URL)'),
    { source: 'resource' },
  ),
  CHAT_WEBHOOK_SECRET_ARN: variable(
    z
      .string()
      .startsWith('arn:')
      .describe("The secret holding the chat channel's incoming-webhook URL (an ARN)"),
    { source: 'resource' },
  ),
  // deliveryRules and retryDelayMs (shared/notifications/delivery-rules.ts): the wait after
  // failed try n is drawn from the upper half of base × 2^(n-1), capped at 15 minutes.
  CHAT_RETRY_BASE_SECONDS: variable(
    positiveSeconds
      .default(30)
      .describe(
        'Seconds above 0: the most the first retry of a post waits (half to all of it, with jitter); it doubles each time, up to 15 minutes',
      ),
    { source: 'default', local: true },
  ),
  // At most 20, so that a worker (30 s) still has time to wait in place for the channel's pace.
  CHAT_TIMEOUT_SECONDS: variable(
    positiveSeconds
      .max(20)
      .default(10)
      .describe('How long a post to the webhook waits for an answer: seconds above 0, at most 20'),
    { source: 'default', local: true },
  ),
  // Slack's incoming webhooks take one message a second (api.slack.com/docs/rate-limits,
  // "Posting messages").
  CHAT_POSTS_PER_SECOND: variable(
    z.coerce
      .number()
      .positive()
      .max(100)
      .default(1)
      .describe(
        "The channel's pace: posts a second over every worker, above 0, at most 100 (Slack takes 1)",
      ),
    { source: 'default', local: true },
  ),
  // A sender's notify allowance: a burst of calls, then a steady rate. 5 covers a client's
  // retries without an Idempotency-Key and a few submissions in a row; 1 a minute lets no one
  // sender hold more than a sixtieth of a channel that takes one message a second, so a
  // flood is five messages (five seconds of channel), not twenty-five.
  NOTIFY_BURST: variable(
    z.coerce
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(5)
      .describe(
        'Notify calls a sender may make at once, 1 to 1,000; more get `429` with `Retry-After`',
      ),
    { source: 'setting', local: true },
  ),
  NOTIFY_RATE_PER_MINUTE: variable(
    z.coerce
      .number()
      .positive()
      .max(6000)
      .default(1)
      .describe('Notify calls a minute a sender gets back after the burst, above 0, at most 6,000'),
    { source: 'setting', local: true },
  ),
  // GuardDuty Malware Protection for S3 (docs/adr/0009-malware-scanning.md). Off, no download
  // waits for a verdict and new files are recorded as stored before scanning.
  MALWARE_SCANNING: variable(
    z
      .enum(['on', 'off'])
      .default('on')
      .describe(
        '`on`: files are scanned for malware and downloadable once clean; `off`: no scan, and files stored meanwhile are held once it is on',
      ),
    { source: 'setting', local: true },
  ),
  // Per-user storage quotas (docs/adr/0010-usage-counting.md): what one user's files and
  // pending direct uploads may hold at once. 10,000 files keep a whole list well inside one
  // answer; 10 GiB is a generous deal room's worth of documents.
  MAX_FILES_PER_USER: variable(
    z.coerce
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .default(10_000)
      .describe(
        'Files a user may hold, pending direct uploads included: 1 to 1,000,000; more get `403`',
      ),
    { source: 'setting', local: true },
  ),
  MAX_BYTES_PER_USER: variable(
    z.coerce
      .number()
      .int()
      .min(1)
      .max(Number.MAX_SAFE_INTEGER)
      .default(10 * 1024 ** 3)
      .describe(
        'Bytes a user may hold, pending direct uploads at their declared size included: at least 1; more get `403`',
      ),
    { source: 'setting', local: true },
  ),
  // A file name's bytes, beside its 255 characters (shared/user-files/upload-limits.ts). The
  // default is the most those can take, 255 of 4 bytes: what the recorded FastAPI answers
  // accept at most (255 × U+1F4C4), so it refuses none of them. A name travels in a direct
  // upload's signed S3 metadata, which S3 holds to 2 KB in all.
  MAX_FILE_NAME_BYTES: variable(
    z.coerce
      .number()
      .int()
      .min(1)
      .max(1020)
      .default(1020)
      .describe(
        "Bytes a file's name may take in UTF-8 (upload, direct upload, rename), 1 to 1,020 (255 characters of 4 bytes); a longer one gets `422`",
      ),
    { source: 'setting', local: true, judgesRequests: true },
  ),
  // How long the access trail keeps an entry (its TTL) and its sealed digests stay locked.
  // 400 days: SOC 2's 6-12 month audit window, with a quarter to spare for the audit itself.
  ACCESS_TRAIL_RETENTION_DAYS: variable(
    z.coerce
      .number()
      .int()
      .min(1)
      .max(3650)
      .default(400)
      .describe(
        'Days the access trail keeps an entry (then it expires) and its digests stay locked: 1 to 3,650',
      ),
    { source: 'setting', local: true },
  ),
} as const;

type Variables = typeof VARIABLES;
export type EnvironmentName = keyof Variables;

/** Every variable's schema, by name. */
export const ENVIRONMENT = Object.fromEntries(
  Object.entries(VARIABLES).map(([name, { schema }]) => [name, schema]),
) as { readonly [K in EnvironmentName]: Variables[K]['schema'] };

export type Environment = { readonly [K in EnvironmentName]: z.output<Variables[K]['schema']> };

type NamesWhere<Role> = {
  [K in EnvironmentName]: Variables[K] extends Role ? K : never;
}[EnvironmentName];

/** The variables an operator sets per stage, each through its stage setting. */
export type SettingVariable = NamesWhere<{ readonly source: 'setting' }>;
/** The variables every deployed stage leaves at their default. */
export type DefaultVariable = NamesWhere<{ readonly source: 'default' }>;
/** The variables that name one of the stage's resources. */
type ResourceVariable = NamesWhere<{ readonly source: 'resource' }>;
/** The variables the local stage reads from its own environment. */
export type LocalVariable = NamesWhere<{ readonly local: true }>;
/** The settings that bound a request field, and so judge requests (`judgesRequests`). */
export type RequestSetting = NamesWhere<{ readonly judgesRequests: true }>;
/** The variables that have a default: every one but those the stage must name. */
type DefaultedVariable = {
  [K in EnvironmentName]: Variables[K]['schema'] extends z.ZodDefault ? K : never;
}[EnvironmentName];

/** The settings handlers take besides their adapters: every variable but resources' names. */
export type HandlerSettings = Pick<Environment, Exclude<EnvironmentName, ResourceVariable>>;

const namesWhere = <K extends EnvironmentName>(test: (role: VariableRole) => boolean) =>
  (Object.keys(VARIABLES) as EnvironmentName[]).filter((name) => test(VARIABLES[name])) as K[];

/**
 * The settings a user's storage quota is made of. A function that holds users to it declares
 * them together (`settings: [...STORAGE_LIMIT_SETTINGS]`) and reads them as one
 * (`storageLimitsOf`), so a new limit is a variable here and a field there.
 */
export const STORAGE_LIMIT_SETTINGS = [
  'MAX_FILES_PER_USER',
  'MAX_BYTES_PER_USER',
] as const satisfies readonly SettingVariable[];
export type StorageLimitSetting = (typeof STORAGE_LIMIT_SETTINGS)[number];

export const SETTING_VARIABLES = namesWhere<SettingVariable>((role) => role.source === 'setting');
export const DEFAULT_VARIABLES = namesWhere<DefaultVariable>((role) => role.source === 'default');
export const LOCAL_VARIABLES = namesWhere<LocalVariable>((role) => role.local === true);
export const REQUEST_SETTINGS = namesWhere<RequestSetting>((role) => role.judgesRequests === true);

/** The values of the settings that judge requests. */
export type RequestSettings = { readonly [K in RequestSetting]: Environment[K] };

/** `MAX_BYTES_PER_USER` as a stage setting's name: `maxBytesPerUser`. */
export type SettingName<K extends string> = K extends `${infer Head}_${infer Tail}`
  ? `${Lowercase<Head>}${Capitalize<SettingName<Tail>>}`
  : Lowercase<K>;

export const settingName = <K extends string>(name: K): SettingName<K> =>
  name
    .toLowerCase()
    .replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase()) as SettingName<K>;

/** The schema without its default: what an operator's value must be, and is not given. */
export type Unwrapped<S> = S extends z.ZodDefault<infer Inner> ? Inner : S;
export const withoutDefault = <S extends z.ZodType>(schema: S): Unwrapped<S> =>
  (schema instanceof z.ZodDefault ? schema.unwrap() : schema) as Unwrapped<S>;

/** Every default the schema holds, as values (what a deployed stage starts from). */
export function variableDefaults(): Pick<Environment, DefaultedVariable> {
  const values: Partial<Record<EnvironmentName, unknown>> = {};
  for (const [name, { schema }] of Object.entries(VARIABLES)) {
    const parsed = schema.safeParse(undefined);
    if (parsed.success) values[name as EnvironmentName] = parsed.data;
  }
  return values as Pick<Environment, DefaultedVariable>;
}

/**
 * The settings that judge requests at their defaults (among the other defaults): what a
 * request field they bound is declared with. Only a variable with a default may judge
 * requests: this does not compile otherwise.
 */
export function requestSettingDefaults(): RequestSettings {
  const defaults: RequestSettings = variableDefaults();
  return defaults;
}

/** A variable's one description: what it means, and its rule in words. */
export const describeVariable = (name: EnvironmentName): string =>
  ENVIRONMENT[name].description ?? name;

/** A variable's default as the docs write it, or undefined when it has none (it is required). */
export function defaultOf(name: EnvironmentName): string | undefined {
  const parsed = ENVIRONMENT[name].safeParse(undefined);
  return parsed.success ? String(parsed.data) : undefined;
}

/** A variable missing or out of its rule: the container stops before it takes a request. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * The named variables, checked against their rules; every problem is reported at once.
 * Blank values count as unset, so a default applies.
 */
export function readEnvironment<const K extends EnvironmentName>(
  names: readonly K[],
  source: Readonly<Record<string, string | undefined>> = process.env,
): Pick<Environment, K> {
  const values: Partial<Record<EnvironmentName, unknown>> = {};
  const problems: string[] = [];
  for (const name of names) {
    const raw = source[name];
    const parsed = ENVIRONMENT[name].safeParse(raw?.trim() === '' ? undefined : raw);
    if (parsed.success) values[name] = parsed.data;
    else problems.push(`${name}: ${parsed.error.issues.map((issue) => issue.message).join('; ')}`);
  }
  if (problems.length > 0) {
    throw new ConfigError(`Environment not usable: ${problems.join(' | ')}`);
  }
  return values as Pick<Environment, K>;
}
