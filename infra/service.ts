import { type App, type Environment, Tags, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ApiStack } from './stacks/api-stack.ts';
import { DataStack } from './stacks/data-stack.ts';
import { apiStackName, dataStackName, type StageConfig } from './stages.ts';

export interface ServiceStacksProps {
  readonly stage: StageConfig;
  /** The repository root, where function entries start. */
  readonly root: string;
  readonly env?: Environment;
}

/**
 * One stage of the service: its data stack and its API stack, checked by cdk-nag's AWS
 * Solutions rules at synth. A finding that no acknowledgement (with its reason) answers
 * fails the synth.
 */
export function addServiceStacks(
  app: App,
  props: ServiceStacksProps,
): { readonly data: DataStack; readonly api: ApiStack } {
  const { stage, root, env } = props;
  const data = new DataStack(app, dataStackName(stage.name), {
    stage,
    env,
    description: `File service ${stage.name}: table, bucket, queues, secrets`,
    terminationProtection: stage.retainData,
  });
  const api = new ApiStack(app, apiStackName(stage.name), {
    stage,
    data,
    root,
    env,
    description: `File service ${stage.name}: HTTP API, functions, alarms, dashboard`,
  });
  Tags.of(app).add('service', 'file-service');
  Tags.of(app).add('stage', stage.name);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  return { data, api };
}
