import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import type { StageName } from '../stages.ts';
import { OperatorRefusal } from './operator-refusal.ts';

/**
 * A deployed stack's outputs by key, read with the caller's ordinary AWS credentials and
 * region: how the CLIs find a stage's resources, none of which has a fixed physical name.
 * A stack that is not there is an OperatorRefusal that says how to deploy it.
 */
export async function readStackOutputs(
  stackName: string,
  stage: StageName,
): Promise<Record<string, string>> {
  const cloudFormation = new CloudFormationClient({});
  try {
    const { Stacks } = await cloudFormation.send(
      new DescribeStacksCommand({ StackName: stackName }),
    );
    return Object.fromEntries(
      (Stacks?.[0]?.Outputs ?? []).map((output) => [
        output.OutputKey ?? '',
        output.OutputValue ?? '',
      ]),
    );
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/does not exist/.test(message)) {
      throw new OperatorRefusal(
        `stack ${stackName} does not exist in this account and region: deploy it first (npm run deploy -- -c stage=${stage})`,
      );
    }
    throw new OperatorRefusal(`could not read stack ${stackName}: ${message}`);
  } finally {
    cloudFormation.destroy();
  }
}
