import * as z from 'zod';
import {
  type DefaultVariable,
  DEFAULT_VARIABLES,
  ENVIRONMENT,
  type Environment,
  SETTING_VARIABLES,
  type SettingName,
  settingName,
  type SettingVariable,
  type Unwrapped,
  withoutDefault,
} from '#shared/config/environment.ts';

/**
 * Per-stage settings, chosen with `-c stage=production|development|local` (production by
 * default). Each stage starts from its defaults below; an operator overrides them in
 * `cdk.json` (`context.stages.<stage>.<setting>`) or on the command line (`-c <setting>=…`,
 * which wins). Production and development have no default issuer, so neither can be deployed
 * trusting a placeholder.
 */
export type StageName = 'production' | 'development' | 'local';

export const STAGE_NAMES: readonly StageName[] = ['production', 'development', 'local'];

/** CloudWatch Logs accepts only these retention periods. */
const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288,
  3653,
] as const;

const LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const;

/** A list given on the command line as `a,b`, or as an array in cdk.json. */
const list = (item: z.ZodString, min = 1) =>
  z.preprocess(
    (value) =>
      typeof value === 'string'
        ? value
            .split(',')
            .map((part) => part.trim())
            .filter((part) => part !== '')
        : value,
    z.array(item).min(min),
  );

/**
 * An origin a browser page may call the stage from, in a form both API Gateway's HTTP API
 * CORS and S3's bucket CORS take: an exact origin (`https://app.example.com`,
 * `http://localhost:5173`), `*`, or `http://*` / `https://*` (any origin of that scheme). HTTP
 * APIs document no other wildcard ("Configure CORS for HTTP APIs", allowOrigins), so
 * `http://localhost:*` is refused rather than deployed to fail.
 */
const ORIGIN_PATTERN =
  /^(\*|https?:\/\/\*|https?:\/\/([a-z0-9]([a-z0-9-]*[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:\d{1,5})?|https?:\/\/\[[0-9a-f:.]+\](:\d{1,5})?)$/;

/** `true`/`false` as `-c` passes them (strings) or as cdk.json holds them. */
const flag = z.preprocess(
  (value) => (value === 'true' ? true : value === 'false' ? false : value),
  z.boolean(),
);

const wholeNumber = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

const httpsUrl = z.url({ protocol: /^https$/, error: 'must be an https:// URL' });

/** A fully qualified hostname in lower case, as API Gateway takes a custom domain name. */
const HOSTNAME =
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** An ACM certificate's ARN: its partition, region, account and id. */
const CERTIFICATE_ARN = /^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[0-9a-f-]+$/;

type Schemas = typeof ENVIRONMENT;

/** The stage settings the schema's variables bring, each by its setting name and its rule. */
const VARIABLE_SETTINGS = Object.fromEntries(
  SETTING_VARIABLES.map((name) => [settingName(name), withoutDefault(ENVIRONMENT[name])]),
) as { readonly [K in SettingVariable as SettingName<K>]: Unwrapped<Schemas[K]> };

/**
 * The settings an operator may set per stage; every one has a default or is required. A
 * setting that a function reads is named after its variable (`realtimeTokenSeconds` is
 * REALTIME_TOKEN_SECONDS) and takes that variable's rule from shared/config/environment.ts.
 */
const StageSettingsSchema = z.strictObject({
  /** The JWT authorizer's issuer: an https URL serving OpenID discovery. */
  jwtIssuer: httpsUrl,
  /** The `aud` values the authorizer accepts. */
  jwtAudience: list(z.string().min(1)),
  ...VARIABLE_SETTINGS,
  /**
   * Realtime tokens' `iss`: the service's public base URL; when absent, the custom domain's
   * (`https://<apiDomainName>`) or else the API's own URL.
   */
  realtimeIssuer: z.url({ protocol: /^https?$/, error: 'must be an http(s):// URL' }).optional(),
  logLevel: z.enum(LOG_LEVELS),
  logRetentionDays: z.coerce
    .number()
    .refine((days) => (LOG_RETENTION_DAYS as readonly number[]).includes(days), {
      error: `must be one of CloudWatch Logs' periods: ${LOG_RETENTION_DAYS.join(', ')}`,
    }),
  /** Keep the table, bucket, queues, secrets and logs when the stack goes (and protect the table). */
  retainData: flag,
  /** Days S3 keeps an object's replaced or deleted versions. */
  noncurrentVersionDays: wholeNumber(1, 3650),
  /**
   * Origins whose pages may call the API and the bucket's signed forms and links (CORS, for
   * the HTTP API and the bucket alike); none means no browser on another origin may.
   */
  allowedOrigins: list(
    z
      .string()
      .regex(
        ORIGIN_PATTERN,
        'entries must be an origin (https://app.example.com), *, http://* or https://*: API Gateway takes no other wildcard',
      ),
    0,
  ),
  /**
   * The API's own hostname (`files.example.com`) and the ACM certificate for it, in the
   * stage's region: both or neither. The name lives in the data stack, so the URL, and the
   * target its DNS record names, outlive the API stack.
   */
  apiDomainName: z
    .string()
    .regex(HOSTNAME, 'must be a lower-case hostname such as files.example.com')
    .optional(),
  apiCertificateArn: z
    .string()
    .regex(
      CERTIFICATE_ARN,
      'must be an ACM certificate ARN (arn:aws:acm:<region>:<account>:certificate/<id>)',
    )
    .optional(),
  /** The HTTP API's steady-state requests a second, and burst, for the whole stage. */
  apiRateLimit: wholeNumber(1, 100_000),
  apiBurstLimit: wholeNumber(1, 5_000),
  /** Whether the stage has CloudWatch alarms, and where they go. */
  alarms: flag,
  alarmEmail: z.email().optional(),
  /** Also post each alarm to the chat channel the notifications use (its webhook secret). */
  alarmChat: flag,
  alarmTopicArn: z
    .string()
    .regex(/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[\w-]+$/, 'must be an SNS topic ARN')
    .optional(),
  /**
   * GuardDuty Malware Protection for S3 on the files bucket, and downloads held until a file
   * is found clean. Its variable's `on`/`off`; `true`/`false` are taken as a flag's words.
   */
  malwareScanning: z.preprocess(
    (value) =>
      value === true || value === 'true'
        ? 'on'
        : value === false || value === 'false'
          ? 'off'
          : value,
    VARIABLE_SETTINGS.malwareScanning,
  ),
});

type StageSettings = z.infer<typeof StageSettingsSchema>;

/** The allowed-origins setting's rule: the local stage reads ALLOWED_ORIGINS by it. */
export const ALLOWED_ORIGINS_SETTING = StageSettingsSchema.shape.allowedOrigins;

export interface StageConfig extends StageSettings {
  readonly name: StageName;
}

type Defaults = Omit<StageSettings, 'jwtIssuer'> & { jwtIssuer?: string };

/** The API's name as a token's `aud`: what every stage's authorizer accepts by default. */
export const API_AUDIENCE = 'file-service-api';

/**
 * The issuer the local stage's template trusts: the local stage's own identity provider
 * (infra/local/gateway/identity-provider.ts issues its tokens for this issuer and `API_AUDIENCE`).
 * Written here, not imported: the config of deployed stages takes nothing from the local stage.
 */
export const LOCAL_STAGE_ISSUER = 'https://local-idp.file-service.invalid/';

/**
 * What every stage starts from; a function, so no stage shares another's arrays. A setting
 * that a function reads starts from its variable's default.
 */
const shared = () => ({
  jwtAudience: [API_AUDIENCE],
  ...(Object.fromEntries(
    SETTING_VARIABLES.map((name) => [settingName(name), ENVIRONMENT[name].parse(undefined)]),
  ) as { readonly [K in SettingVariable as SettingName<K>]: Environment[K] }),
});

/**
 * What development and the local stage allow: any `http://` page, so a dev server on
 * localhost or 127.0.0.1 works on whatever port it takes. `http://localhost:*` would say it
 * closer, but HTTP APIs document no port wildcard; the API takes bearer tokens, never
 * cookies, so a page must hold a token to call it whatever its origin.
 */
const DEVELOPMENT_ORIGINS: readonly string[] = ['http://*'];

export const STAGE_DEFAULTS: Readonly<Record<StageName, Defaults>> = {
  production: {
    ...shared(),
    // None until an operator names the web app's origin.
    allowedOrigins: [],
    logLevel: 'INFO',
    logRetentionDays: 90,
    retainData: true,
    noncurrentVersionDays: 30,
    apiRateLimit: 1000,
    apiBurstLimit: 2000,
    alarms: true,
    alarmChat: false,
  },
  development: {
    ...shared(),
    allowedOrigins: [...DEVELOPMENT_ORIGINS],
    logLevel: 'DEBUG',
    logRetentionDays: 14,
    retainData: false,
    noncurrentVersionDays: 7,
    apiRateLimit: 50,
    apiBurstLimit: 100,
    alarms: true,
    alarmChat: false,
  },
  local: {
    ...shared(),
    allowedOrigins: [...DEVELOPMENT_ORIGINS],
    jwtIssuer: LOCAL_STAGE_ISSUER,
    logLevel: 'DEBUG',
    logRetentionDays: 3,
    retainData: false,
    noncurrentVersionDays: 1,
    apiRateLimit: 50,
    apiBurstLimit: 100,
    alarms: false,
    alarmChat: false,
  },
};

/** Outputs of the data stack that the API stack and the operator CLI read by name. */
export const DATA_OUTPUTS = {
  tableName: 'TableName',
  trailTableName: 'AccessTrailTableName',
  /** The stage's accessTrailRetentionDays: the entries the operator CLI writes expire with it. */
  trailRetentionDays: 'AccessTrailRetentionDays',
  /** Where the access trail's digests are locked: `access seal` and `access verify` read it. */
  trailDigestBucketName: 'AccessTrailDigestBucketName',
  bucketName: 'BucketName',
  realtimeKeysSecretArn: 'RealtimeKeysSecretArn',
  /** The role `admin scan release|rescan` assumes on AWS (with malwareScanning on). */
  heldFileReleaserRoleArn: 'HeldFileReleaserRoleArn',
  /** Scan-result events the verdict function still failed on (with malwareScanning on). */
  scanEventFailuresQueueUrl: 'ScanEventFailuresQueueUrl',
} as const;

/** The API stack's output naming a function, for the operator CLI and `aws lambda invoke`. */
export const functionNameOutput = (functionId: string): string => `${functionId}FunctionName`;

/** The CloudFormation stack holding a stage's data; the operator CLI reads its outputs. */
export const dataStackName = (stage: StageName): string => `FileService-${stage}`;
/** The stack holding a stage's API, functions and alarms: safe to destroy and redeploy. */
export const apiStackName = (stage: StageName): string => `FileService-${stage}-api`;

const SETTING_NAMES = Object.keys(StageSettingsSchema.shape) as (keyof StageSettings)[];

/**
 * Context keys that are CDK's or its CLI's, never a stage's setting: feature flags
 * (`@aws-cdk/…`, `@aws-cdk-containers/…`), what the CLI passes every synth (`aws:cdk:…`, as
 * `cdk synth` 2.1148.1 does: path and asset metadata, version reporting, bundling stacks),
 * older CLI switches (`aws-cdk:…`), lookups cached in cdk.context.json
 * (`<provider>:account=…`), and the CLI's acknowledged notices and telemetry switch.
 */
const CDK_CONTEXT_KEY =
  /^(@aws-cdk[\w-]*\/|aws:cdk:|aws-cdk:)|:account=|^(acknowledged-issue-numbers|cli-telemetry)$/;

/** The plain context keys of this app: the stage, cdk.json's per-stage object, the settings. */
const APP_CONTEXT_KEYS: readonly string[] = ['stage', 'stages', ...SETTING_NAMES];

/**
 * The context keys neither a setting nor CDK's own: a misspelled `-c alarmEmial=…`, or the
 * same at the top of cdk.json's `context`. CDK takes any key, so without this a typo would
 * synthesize cleanly and deploy the stage without the setting.
 */
function unknownContextKeys(keys: readonly string[]): string[] {
  return keys.filter((key) => !APP_CONTEXT_KEYS.includes(key) && !CDK_CONTEXT_KEY.test(key));
}

/** What of a CDK app the stage's settings are read from: its context, and every key of it. */
interface ContextNode {
  readonly node: {
    tryGetContext(key: string): unknown;
    getAllContext(): Record<string, unknown>;
  };
}

/**
 * The settings of the stage an app's context names (`npm run synth`, `npm run deploy`), with
 * every key of that context checked: one that is neither a setting nor CDK's is refused.
 */
export function stageConfigOf(app: ContextNode): StageConfig {
  return stageConfig((key) => app.node.tryGetContext(key), Object.keys(app.node.getAllContext()));
}

/**
 * The settings of the stage that `-c stage` names. `context` reads CDK context: flat
 * `-c key=value` entries, and the `stages` object of cdk.json; `contextKeys`, when given, are
 * every key of it, each of which must be a setting or CDK's own.
 */
export function stageConfig(
  context: (key: string) => unknown,
  contextKeys: readonly string[] = [],
): StageConfig {
  const name = context('stage') ?? 'production';
  if (typeof name !== 'string' || !(STAGE_NAMES as readonly string[]).includes(name)) {
    throw new Error(
      `-c stage must be one of ${STAGE_NAMES.join(', ')}; got ${JSON.stringify(name)}`,
    );
  }
  const stage = name as StageName;
  const unknownKeys = unknownContextKeys(contextKeys).filter((key) => key !== 'uploadOrigins');
  if (unknownKeys.length > 0) {
    throw new Error(
      `Stage ${stage}: unknown context ${unknownKeys.map((key) => `-c ${key}`).join(', ')} (from the command line, or the top of cdk.json's "context"); the settings are ${SETTING_NAMES.join(', ')}, beside stage and stages`,
    );
  }
  const fromFile = context('stages');
  const perStage =
    typeof fromFile === 'object' && fromFile !== null
      ? (fromFile as Record<string, unknown>)[stage]
      : undefined;
  if (perStage !== undefined && (typeof perStage !== 'object' || perStage === null)) {
    throw new Error(`context.stages.${stage} in cdk.json must be an object`);
  }
  const given: Record<string, unknown> = { ...(perStage as Record<string, unknown> | undefined) };
  for (const key of SETTING_NAMES) {
    const value = context(key);
    // `-c allowedOrigins=` says none; any other empty value leaves the setting as it was.
    if (value !== undefined && (value !== '' || key === 'allowedOrigins')) given[key] = value;
  }
  if (given.uploadOrigins !== undefined || context('uploadOrigins') !== undefined) {
    throw new Error(
      `Stage ${stage}: uploadOrigins is now allowedOrigins, one list for the API and the bucket (context.stages.${stage}.allowedOrigins in cdk.json, or -c allowedOrigins=…)`,
    );
  }
  const unknown = Object.keys(given).filter(
    (key) => !(SETTING_NAMES as readonly string[]).includes(key),
  );
  if (unknown.length > 0) {
    throw new Error(
      `context.stages.${stage} has unknown settings: ${unknown.join(', ')}; known: ${SETTING_NAMES.join(', ')}`,
    );
  }
  if (given.jwtIssuer === undefined && STAGE_DEFAULTS[stage].jwtIssuer === undefined) {
    throw new Error(
      `The ${stage} stage needs a jwtIssuer (-c jwtIssuer=https://… or context.stages.${stage}.jwtIssuer in cdk.json): the issuer whose tokens API Gateway accepts`,
    );
  }
  const parsed = StageSettingsSchema.safeParse({ ...STAGE_DEFAULTS[stage], ...given });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const key = String(issue.path[0] ?? '');
      return `${key} ${issue.message} (got ${JSON.stringify(given[key])})`;
    });
    throw new Error(`Stage ${stage}: ${problems.join('; ')}`);
  }
  if (parsed.data.apiBurstLimit < Math.min(parsed.data.apiRateLimit, 5000)) {
    // A burst below the steady rate would throttle the rate itself.
    throw new Error(
      `Stage ${stage}: apiBurstLimit (${parsed.data.apiBurstLimit}) must be at least apiRateLimit (${parsed.data.apiRateLimit}), or 5000`,
    );
  }
  if (parsed.data.alarmEmail !== undefined && parsed.data.alarmTopicArn !== undefined) {
    throw new Error(
      `Stage ${stage}: set alarmEmail or alarmTopicArn, not both (alarms go to the existing topic, and the email would be ignored)`,
    );
  }
  if ((parsed.data.apiDomainName === undefined) !== (parsed.data.apiCertificateArn === undefined)) {
    throw new Error(
      `Stage ${stage}: set apiDomainName and apiCertificateArn together (the custom domain serves with its certificate), or neither`,
    );
  }
  const { alarms, alarmEmail, alarmTopicArn, alarmChat } = parsed.data;
  if (!alarms && (alarmChat || alarmEmail !== undefined || alarmTopicArn !== undefined)) {
    throw new Error(
      `Stage ${stage}: alarmEmail, alarmTopicArn and alarmChat need alarms=true (the stage has no alarms to send)`,
    );
  }
  return { name: stage, ...parsed.data };
}

/**
 * The stage's value of every variable its settings or the schema's defaults give, as the
 * functions' environment holds them.
 */
export function settingVariables(
  stage: StageConfig,
): Readonly<Record<SettingVariable | DefaultVariable, string>> {
  return Object.fromEntries([
    ...SETTING_VARIABLES.map((name) => [name, String(stage[settingName(name)])]),
    ...DEFAULT_VARIABLES.map((name) => [name, String(ENVIRONMENT[name].parse(undefined))]),
  ]) as Record<SettingVariable | DefaultVariable, string>;
}
