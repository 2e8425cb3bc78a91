import { isIP } from 'node:net';
import type { LocalVariable } from '#shared/config/environment.ts';
import { localOverrides } from '../stage/local-stage-variables.ts';
import { endpointOf } from '../object-store-server.ts';
import type { StageRecord } from '../stage/stage-lock.ts';

/**
 * SAM CLI's `--env-vars` file for the local stage's template: for each function (by its id,
 * SAM's `SamResourceId`), a value for every variable its template declares. SAM gives a
 * function only the variables its template declares, each from, in order, this file, the
 * shell, the template (samcli/local/lambdafn/env_vars.py); a value it cannot resolve becomes an
 * empty string. So every declared variable gets its value here.
 */
export type SamEnvironment = Record<string, Record<string, string>>;

/** What the running stage must tell: its record, and DynamoDB's address beyond loopback. */
export type SamStage = Pick<StageRecord, 'url' | 's3Endpoint' | 'tableName' | 'bucket'> & {
  /** DynamoDB Local's signature-checking front on the stage's host, when it has one. */
  readonly dynamodbNetworkEndpoint?: string;
};

/** Why no env file can be written: the CLI says it and exits with 2. */
export class SamEnvRefused extends Error {}

const LOOPBACK = /^(localhost|127(\.\d+){3}|\[?::1\]?)$/i;

interface TemplateFunction {
  readonly functionId: string;
  readonly variables: Readonly<Record<string, unknown>>;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The service's functions in a synthesized local template, with their declared variables as
 * the template writes them. The local template names each function's id in `SamResourceId`;
 * CDK's own helper functions (the custom resource's provider) carry none and are left out.
 */
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

/**
 * What SAM makes of a template value: a string is itself, a `Ref` to a parameter is its
 * default (samcli/lib/intrinsic_resolver/intrinsics_symbol_table.py); anything else SAM would
 * pass as an empty string, so it has no value here.
 */
export function samResolvedValue(template: unknown, value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (!isRecord(value) || typeof value.Ref !== 'string') return undefined;
  const parameters = isRecord(template) && isRecord(template.Parameters) ? template.Parameters : {};
  const parameter = parameters[value.Ref];
  const fallback = isRecord(parameter) ? parameter.Default : undefined;
  return typeof fallback === 'string' ? fallback : undefined;
}

/**
 * The address a container reaches the stage by: `given` (an IP address), else the host of the
 * stage's URL, which names the address the stage listens on (or, listening on every
 * interface, this machine's first network address). It must be an IP address: under any other
 * endpoint the S3 client addresses a bucket by host name (`<bucket>.<host>`, virtual-hosted
 * style), which resolves nowhere; under an IP address it puts the bucket in the path.
 */
export function containerAddress(stage: Pick<SamStage, 'url'>, given?: string): string {
  const host = new URL(stage.url).hostname.replace(/^\[(.*)\]$/, '$1');
  if (LOOPBACK.test(host)) {
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

/**
 * A value for every variable the running stage knows: its own facts, every setting the schema
 * lets it override, and the SDK's endpoints (the queues and secrets it serves in process only).
 */
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

/**
 * The values the running stage gives the variables it knows: its table and bucket, its URL
 * as the realtime issuer, the endpoints a container reaches DynamoDB and the object store by,
 * and the settings `npm start` reads from its own environment (`env`, read the same way).
 */
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
  // As `npm start` reads them; MALWARE_SCANNING as the stage holds downloads: its own scanner
  // tags what lands in its object store.
  const { CHAT_WEBHOOK_URL: _inProcessOnly, ...settings } = localOverrides(env);
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

/**
 * The env file: each function's declared variables, each with the stage's value where the
 * stage has one, else the template's own (what SAM would use anyway: Powertools' settings,
 * S3's checksum settings, the endpoints of SQS and Secrets Manager, which point nowhere).
 */
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
