import { isIP } from 'node:net';
import type { LocalVariable } from '#shared/config/environment.ts';
import { localOverrides } from '../stage/local-stage-variables.ts';
import { endpointOf } from '../object-store/object-store-front.ts';
import type { StageRecord } from '../stage/stage-lock.ts';
import { isLoopback } from '../stage/public-host.ts';

/**
 * SAM CLI's `--env-vars` file: by function id, a value for every variable its template
 * declares, as SAM passes an unresolved one as an empty string (samcli/local/lambdafn/env_vars.py).
 */
export type SamEnvironment = Record<string, Record<string, string>>;

/** What the running stage must tell: its record, and DynamoDB's address beyond loopback. */
export type SamStage = Pick<StageRecord, 'url' | 's3Endpoint' | 'tableName' | 'bucket'> & {
  /** DynamoDB Local's signature-checking front on the stage's host, when it has one. */
  readonly dynamodbNetworkEndpoint?: string;
};

/** Why no env file can be written: the CLI says it and exits with 2. */
export class SamEnvRefused extends Error {}

interface TemplateFunction {
  readonly functionId: string;
  readonly variables: Readonly<Record<string, unknown>>;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The template's functions by `SamResourceId`; CDK's own helpers carry none. */
export function templateFunctions(template: unknown): TemplateFunction[] {
  const resources = isRecord(template) && isRecord(template.Resources) ? template.Resources : {};
  const functions: TemplateFunction[] = [];
  for (const resource of Object.values(resources)) {
    if (!isRecord(resource) || resource.Type !== 'AWS::Lambda::Function') continue;
    const functionId = isRecord(resource.Metadata) ? resource.Metadata.SamResourceId : undefined;
    if (typeof functionId !== 'string') continue;
    const properties = isRecord(resource.Properties) ? resource.Properties : {};
    const environment = isRecord(properties.Environment) ? properties.Environment : {};
    functions.push({
      functionId,
      variables: isRecord(environment.Variables) ? environment.Variables : {},
    });
  }
  if (functions.length === 0) {
    throw new SamEnvRefused(
      "the template has no function with a SamResourceId: it is not the local stage's (run `npx cdk synth -c stage=local`)",
    );
  }
  return functions;
}

/** A string, or a parameter's default by `Ref`: all SAM resolves here. */
export function samResolvedValue(template: unknown, value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (!isRecord(value) || typeof value.Ref !== 'string') return undefined;
  const parameters = isRecord(template) && isRecord(template.Parameters) ? template.Parameters : {};
  const parameter = parameters[value.Ref];
  const fallback = isRecord(parameter) ? parameter.Default : undefined;
  return typeof fallback === 'string' ? fallback : undefined;
}

/**
 * The address a container reaches the stage by: `given`, else its URL's host. An IP address,
 * or the S3 client would address the bucket as `<bucket>.<host>`, which resolves nowhere.
 */
export function containerAddress(stage: Pick<SamStage, 'url'>, given?: string): string {
  const host = new URL(stage.url).hostname.replace(/^\[(.*)\]$/, '$1');
  if (isLoopback(host)) {
    throw new SamEnvRefused(
      `the stage at ${stage.url} listens on loopback only, where a container cannot reach it: ` +
        'start it with HOST=0.0.0.0 npm start (or HOST=<an address of this machine that containers reach>)',
    );
  }
  const address = given ?? host;
  if (isIP(address) === 0) {
    throw new SamEnvRefused(
      `${address} is not an IP address: the S3 client would address the bucket as <bucket>.${address}; ` +
        'give --host <the IP address a container reaches this machine by>',
    );
  }
  return address;
}

const portOf = (endpoint: string): number => Number(new URL(endpoint).port);

/** The running stage's facts, its settings and the SDK's endpoints it serves beyond itself. */
type StageValues = Readonly<
  Record<
    | 'STAGE'
    | 'TABLE_NAME'
    | 'BUCKET_NAME'
    | 'REALTIME_ISSUER'
    | LocalVariable
    | 'AWS_ENDPOINT_URL_DYNAMODB'
    | 'AWS_ENDPOINT_URL_S3',
    string
  >
>;

/** The values of StageValues; the settings read from `env` as `npm start` reads them. */
export function stageValues(
  stage: SamStage,
  address: string,
  env: Readonly<Record<string, string | undefined>>,
): StageValues {
  if (stage.dynamodbNetworkEndpoint === undefined) {
    throw new SamEnvRefused(
      `the stage at ${stage.url} serves DynamoDB on loopback only, where a container cannot reach it ` +
        '(a stage started with HOST=0.0.0.0 serves it beyond loopback too)',
    );
  }
  // The webhook, the origins and the scanner's wait are the stage's own, not a function's.
  const { CHAT_WEBHOOK_URL, ALLOWED_ORIGINS, LOCAL_SCAN_DELAY_MS, ...settings } =
    localOverrides(env);
  return {
    STAGE: 'local',
    TABLE_NAME: stage.tableName,
    BUCKET_NAME: stage.bucket,
    REALTIME_ISSUER: stage.url,
    ...(Object.fromEntries(
      Object.entries(settings).map(([name, value]) => [name, String(value)]),
    ) as Record<LocalVariable, string>),
    AWS_ENDPOINT_URL_DYNAMODB: endpointOf(address, portOf(stage.dynamodbNetworkEndpoint)),
    AWS_ENDPOINT_URL_S3: endpointOf(address, portOf(stage.s3Endpoint)),
  };
}

/** Each function's declared variables: the stage's value, else what SAM makes of the template's. */
export function samEnvironment(template: unknown, values: Readonly<Record<string, string>>) {
  const environment: SamEnvironment = {};
  for (const { functionId, variables } of templateFunctions(template)) {
    const own: Record<string, string> = {};
    for (const [name, declared] of Object.entries(variables)) {
      const value = values[name] ?? samResolvedValue(template, declared);
      if (value === undefined) {
        throw new SamEnvRefused(
          `${functionId} declares ${name} as ${JSON.stringify(declared)}, which SAM passes as an empty string, and the stage has no value for it`,
        );
      }
      own[name] = value;
    }
    environment[functionId] = own;
  }
  return environment;
}
