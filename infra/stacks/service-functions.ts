import { join } from 'node:path';
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { FUNCTION_ENTRIES, type FunctionId } from '#shared/api/routes.ts';
import type { EnvironmentName } from '#shared/config/environment.ts';
import { FUNCTION_ENVIRONMENT } from '#shared/config/function-environment.ts';
import {
  grantItems,
  grantListVersions,
  grantMissingObjectsAsNotFound,
  grantObjects,
  grantSecretValue,
  grantSend,
} from '../constructs/grants.ts';
import type { ServiceAlarms } from '../constructs/service-alarms.ts';
import { ServiceFunction } from '../constructs/service-function.ts';
import { FUNCTION_TABLE, type FunctionGrant, PARTITION_KEYS } from './function-table.ts';
import type { ServiceData } from './data-stack.ts';

export interface ServiceFunctionsProps {
  /** The repository root, where function entries start. */
  readonly root: string;
  readonly data: ServiceData;
  /** The bucket as the functions name it (through the data stack's output). */
  readonly bucket: IBucket;
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

/**
 * Makes each function from its row of FUNCTION_TABLE: its sizing, exactly the environment
 * FUNCTION_ENVIRONMENT lists for it, its grants, and its alarms. The construct id is the
 * function id, under whatever construct makes it.
 */
export class ServiceFunctions {
  private readonly props: ServiceFunctionsProps;
  private readonly made = new Map<FunctionId, IFunction>();

  constructor(props: ServiceFunctionsProps) {
    this.props = props;
  }

  make(
    scope: Construct,
    functionId: FunctionId,
    options: { readonly description?: string; readonly bundledFiles?: readonly string[] } = {},
  ): IFunction {
    const { props } = this;
    const spec: (typeof FUNCTION_TABLE)[FunctionId] = FUNCTION_TABLE[functionId];
    const entry = FUNCTION_ENTRIES.get(functionId);
    const description = options.description ?? ('description' in spec ? spec.description : '');
    if (entry === undefined) throw new Error(`${functionId} has no handler module`);
    const environment: Record<string, string> = {
      POWERTOOLS_SERVICE_NAME: props.powertools.serviceName,
      POWERTOOLS_LOG_LEVEL: props.powertools.logLevel,
      POWERTOOLS_METRICS_NAMESPACE: props.powertools.metricsNamespace,
    };
    for (const name of FUNCTION_ENVIRONMENT[functionId])
      environment[name] = props.environment[name];
    const fn = new ServiceFunction(scope, functionId, {
      entry: join(props.root, entry),
      description,
      environment,
      memorySize: spec.memorySize,
      timeout: Duration.seconds(spec.timeout),
      logRetention: props.logRetention,
      removalPolicy: props.removalPolicy,
      ...(options.bundledFiles === undefined ? {} : { bundledFiles: options.bundledFiles }),
    }).function;
    for (const grant of spec.grants) this.grant(fn, grant);
    if (!('alarms' in spec)) props.alarms?.watchFunction(functionId, fn);
    this.made.set(functionId, fn);
    return fn;
  }

  /** Every function made so far, by function id. */
  get all(): ReadonlyMap<FunctionId, IFunction> {
    return this.made;
  }

  /** One row's grant, as exactly one IAM statement. */
  private grant(fn: IGrantable, grant: FunctionGrant): void {
    const { data, bucket } = this.props;
    if ('items' in grant) {
      grantItems(data.table, fn, grant.items, [PARTITION_KEYS[grant.in]], grant.index);
    } else if ('objects' in grant) grantObjects(bucket, fn, grant.objects, grant.under);
    else if ('missingObjectsAsNotFound' in grant) grantMissingObjectsAsNotFound(bucket, fn);
    else if ('listVersionsUnder' in grant) grantListVersions(bucket, fn, grant.listVersionsUnder);
    else if ('secret' in grant) grantSecretValue(data[grant.secret], fn, grant.access);
    else grantSend(data[grant.send], fn);
  }
}
