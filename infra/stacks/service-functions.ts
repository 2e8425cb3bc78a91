import { join } from 'node:path';
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import type { EnvironmentName } from '#shared/config/environment.ts';
import {
  type FunctionDeclaration,
  type FunctionResources,
  PARTITION_KEYS,
  RESOURCE_NAMES,
  type ResourceName,
} from '#shared/functions/function-declaration.ts';
import { DIGEST_PREFIX } from '#shared/access-trail/adapters/s3-trail-digests.ts';
import {
  grantDigests,
  grantItems,
  grantListVersions,
  grantMissingObjectsAsNotFound,
  grantObjects,
  grantSecretValue,
  grantSend,
  grantTrail,
} from '../constructs/grants.ts';
import type { ServiceAlarms } from '../constructs/service-alarms.ts';
import { ServiceFunction } from '../constructs/service-function.ts';
import { bundleConstantsOf } from '#functions/service-functions.ts';
import { PARTITION_KEY, SORT_KEY } from '#shared/storage/keys.ts';
import type { ServiceData } from './data-stack.ts';

export interface ServiceFunctionsProps {
  /** Every function the stage deploys (`SERVICE_FUNCTIONS`). */
  readonly declarations: readonly FunctionDeclaration[];
  /** The repository root, where function entries start. */
  readonly root: string;
  readonly data: ServiceData;
  /** The bucket as the functions name it (through the data stack's output). */
  readonly bucket: IBucket;
  /** The access trail's digest bucket, named the same way. */
  readonly trailDigestBucket: IBucket;
  /** A value for every variable a function may read; each function gets only its own. */
  readonly environment: Readonly<Record<EnvironmentName, string>>;
  /** Powertools' own settings, on every function. */
  readonly powertools: {
    readonly serviceName: string;
    readonly logLevel: string;
    readonly metricsNamespace: string;
  };
  readonly logRetention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
  /** Errors and throttles of every function made here; none when absent. */
  readonly alarms?: ServiceAlarms;
}

/** A resource reached with one named access (`'read'`, `'send'`), not a list of grants. */
type AccessResource = {
  [R in ResourceName]: FunctionResources[R] extends string | undefined ? R : never;
}[ResourceName];

/** How each resource's declared access becomes IAM statements: one per grant. */
type Granters = {
  readonly [R in ResourceName]: (access: NonNullable<FunctionResources[R]>, fn: IGrantable) => void;
};

/**
 * Every function of the stage, made here from its declaration: its sizing, exactly the
 * variables its declaration brings (and Powertools' own), one IAM statement per grant, its
 * alarms. Each function's constructs live under its id here, so this is the functions' id
 * namespace; routes, event sources, outputs and the dashboard take them as `IFunction`s.
 */
export class ServiceFunctions extends Construct {
  private readonly made = new Map<string, IFunction>();
  private readonly declarations: ReadonlyMap<string, FunctionDeclaration>;

  constructor(scope: Construct, id: string, props: ServiceFunctionsProps) {
    super(scope, id);
    this.declarations = new Map(props.declarations.map((fn) => [fn.id, fn]));
    const { data, bucket } = props;
    const granters: Granters = {
      table: (grants, fn) => {
        for (const grant of grants) {
          const attributes = grant.keysOnly === true ? [PARTITION_KEY, SORT_KEY] : undefined;
          const partitions = [PARTITION_KEYS[grant.in]];
          grantItems(data.table, fn, grant.items, partitions, grant.index, attributes);
        }
      },
      trail: (grants, fn) => {
        for (const grant of grants) grantTrail(data.trailTable, fn, grant.items, grant.index);
      },
      trailDigests: (_seal, fn) => {
        grantDigests(props.trailDigestBucket, fn, DIGEST_PREFIX);
      },
      bucket: (grants, fn) => {
        for (const grant of grants) {
          if ('objects' in grant) grantObjects(bucket, fn, grant.objects, grant.under);
          else if ('missingObjectsAsNotFound' in grant) grantMissingObjectsAsNotFound(bucket, fn);
          else grantListVersions(bucket, fn, grant.listVersionsUnder);
        }
      },
      notificationQueue: (access, fn) => {
        // A consumer's grant comes with the event source that feeds it (NotificationWorker).
        if (access === 'send') grantSend(data.notificationQueue, fn);
      },
      notificationDeadLetters: (_send, fn) => {
        grantSend(data.notificationDeadLetters, fn);
      },
      realtimeKeys: (access, fn) => {
        grantSecretValue(data.realtimeKeys, fn, access);
      },
      chatWebhook: (access, fn) => {
        grantSecretValue(data.chatWebhook, fn, access);
      },
    };
    for (const declaration of props.declarations) {
      const fn = this.make(declaration, props);
      for (const resource of RESOURCE_NAMES) {
        const access = declaration[resource];
        if (access === undefined) continue;
        // Each granter takes its own resource's access; TypeScript cannot pair them in a loop.
        (granters[resource] as (access: unknown, fn: IGrantable) => void)(access, fn);
      }
      if (declaration.alarms !== false) props.alarms?.watchFunction(declaration.id, fn);
      this.made.set(declaration.id, fn);
    }
  }

  /** The function a declaration describes. */
  get(declaration: Pick<FunctionDeclaration, 'id'>): IFunction {
    const fn = this.made.get(declaration.id);
    if (fn === undefined) throw new Error(`${declaration.id} is not one of the stage's functions`);
    return fn;
  }

  /** Every function, by function id, in the declarations' order. */
  get all(): ReadonlyMap<string, IFunction> {
    return this.made;
  }

  /** The functions declared with this access to a resource, e.g. the realtime keys' readers. */
  granted<R extends AccessResource>(resource: R, access: FunctionResources[R]): IFunction[] {
    return [...this.declarations.values()]
      .filter((declaration) => declaration[resource] === access)
      .map((declaration) => this.get(declaration));
  }

  private make(declaration: FunctionDeclaration, props: ServiceFunctionsProps): IFunction {
    const environment: Record<string, string> = {
      POWERTOOLS_SERVICE_NAME: props.powertools.serviceName,
      POWERTOOLS_LOG_LEVEL: props.powertools.logLevel,
      POWERTOOLS_METRICS_NAMESPACE: props.powertools.metricsNamespace,
    };
    for (const name of declaration.variables) environment[name] = props.environment[name];
    const routes = declaration.routes ?? [];
    return new ServiceFunction(this, declaration.id, {
      entry: join(props.root, declaration.entry),
      // A route function is described by its routes.
      description:
        declaration.description ??
        routes.map((route) => `${route.method} ${route.path}`).join(', '),
      environment,
      memorySize: declaration.sizing.memoryMb,
      timeout: Duration.seconds(declaration.sizing.timeoutSeconds),
      logRetention: props.logRetention,
      removalPolicy: props.removalPolicy,
      ...(declaration.bundledFiles === undefined ? {} : { bundledFiles: declaration.bundledFiles }),
      bundleConstants: bundleConstantsOf(declaration),
    }).function;
  }
}
