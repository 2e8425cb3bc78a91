/**
 * The smoke check's steps that read the stage itself rather than its public API, with the
 * operator's AWS credentials and region (on the local stage, its data folder), as the operator
 * CLI finds a stage: the bucket's notification configuration, the malware protection plan,
 * a deal file copied as `admin deal-file add --from-user-file` copies one, its download's
 * access-trail entry sealed and verified, and the digest bucket's lock. What they prove only
 * a deployed stage shows; the local stage skips what it has no stand-in for.
 */
import {
  GetBucketNotificationConfigurationCommand,
  type GetBucketNotificationConfigurationCommandOutput,
} from '@aws-sdk/client-s3';
import { finalizeDirectUploadFunction } from '#functions/finalize-direct-upload/function.ts';
import { addDealFile } from '#shared/deal-files/add-deal-file.ts';
import { isOutcome } from '#shared/domain/outcome.ts';
import type { DealRef } from '#shared/groups/group.ts';
import { DIRECT_UPLOAD_OBJECT_PREFIX } from '#shared/storage/keys.ts';
import { portsOn } from '#infra/admin/operator-ports.ts';
import { readStackOutputs } from '#infra/admin/stack-outputs.ts';
import { stageTarget, type StageTarget } from '#infra/admin/stage-target.ts';
import { apiStackName, dataStackName, functionNameOutput } from '#infra/stages.ts';
import {
  type MalwareProtectionPlan,
  readMalwareProtectionPlan,
} from './malware-protection-plan.ts';
import { CheckFailed, type SentFile, type SmokeRun, StepSkipped } from './smoke-run.ts';
import { dealFileDownloadEntry, digestLock, sealedAndVerified } from './smoke-access-trail.ts';

type NotificationConfiguration = Pick<
  GetBucketNotificationConfigurationCommandOutput,
  'LambdaFunctionConfigurations' | 'EventBridgeConfiguration'
>;

/** The event the finalizer's notification names (CDK's EventType.OBJECT_CREATED). */
const OBJECT_CREATED = 's3:ObjectCreated:*';

/**
 * The bucket has one notification configuration, written whole, and two writers: GuardDuty
 * turns on its EventBridge setting (how its plan hears new objects), and the API stack adds
 * the finalizer's, for objects created under `uploads/`. A deploy that wrote either over the
 * other is found here: what is missing, or the configuration as found.
 */
export function judgeBucketNotifications(
  config: NotificationConfiguration,
  expected: { readonly finalizer: string; readonly scanning: boolean },
): string {
  const missing: string[] = [];
  const finalizer = (config.LambdaFunctionConfigurations ?? []).find((notification) =>
    notification.LambdaFunctionArn?.endsWith(`:function:${expected.finalizer}`),
  );
  const prefix = finalizer?.Filter?.Key?.FilterRules?.find(
    (rule) => rule.Name?.toLowerCase() === 'prefix',
  )?.Value;
  if (finalizer === undefined) {
    missing.push(`no notification invokes the finalizer ${expected.finalizer}`);
  } else if (
    prefix !== DIRECT_UPLOAD_OBJECT_PREFIX ||
    finalizer.Events?.includes(OBJECT_CREATED) !== true
  ) {
    missing.push(
      `the finalizer's notification is ${(finalizer.Events ?? []).join(', ')} under "${String(prefix)}", not ${OBJECT_CREATED} under ${DIRECT_UPLOAD_OBJECT_PREFIX}`,
    );
  }
  const eventBridge = config.EventBridgeConfiguration !== undefined;
  if (expected.scanning && !eventBridge) {
    missing.push("no EventBridgeConfiguration: GuardDuty's plan hears no new object");
  }
  if (missing.length > 0) throw new CheckFailed(missing.join('; '));
  const guardDuty = eventBridge ? 'EventBridge on' : 'EventBridge off (the stage does not scan)';
  return `${guardDuty}; ${OBJECT_CREATED} under ${DIRECT_UPLOAD_OBJECT_PREFIX} invokes ${expected.finalizer}`;
}

/** Only an ACTIVE plan scans; WARNING and ERROR come with GuardDuty's reasons. */
export function judgeMalwareProtectionPlan(
  plan: MalwareProtectionPlan | undefined,
  stackName: string,
): string {
  if (plan === undefined) {
    throw new CheckFailed(
      `stack ${stackName} holds no malware protection plan, yet the stage scans`,
    );
  }
  if (plan.Status === 'ACTIVE') return `plan ${plan.id}: ACTIVE`;
  const reasons = (plan.StatusReasons ?? [])
    .map(({ Code, Message }) => [Code, Message].filter((part) => part !== undefined).join(' '))
    .join('; ');
  throw new CheckFailed(
    `plan ${plan.id} is ${plan.Status ?? 'without a status'}${reasons === '' ? '' : ` (${reasons})`}, expected ACTIVE: GuardDuty scans nothing meanwhile`,
  );
}

/** Its notification configuration holds GuardDuty's setting and the finalizer's. */
const bucketNotifications = (run: SmokeRun, target: () => Promise<StageTarget>) =>
  run.step('bucket notifications: GuardDuty, finalizer', async () => {
    const { stage } = run.options;
    if (stage === 'local') {
      throw new StepSkipped(
        'the local stage has no notification configuration: its object store invokes the finalizer itself',
      );
    }
    const { sources, scanning } = await target();
    const stackName = apiStackName(stage);
    const output = functionNameOutput(finalizeDirectUploadFunction.id);
    const finalizer = (await readStackOutputs(stackName, stage))[output];
    if (finalizer === undefined) {
      throw new CheckFailed(`stack ${stackName} has no ${output} output: deploy it first`);
    }
    const config = await sources
      .s3()
      .send(new GetBucketNotificationConfigurationCommand({ Bucket: sources.BUCKET_NAME }));
    return judgeBucketNotifications(config, { finalizer, scanning });
  });

/** On a stage that scans, GuardDuty says its plan is ACTIVE. */
const planActive = (run: SmokeRun, target: () => Promise<StageTarget>) =>
  run.step('malware protection plan: ACTIVE', async () => {
    const { stage } = run.options;
    if (stage === 'local') {
      throw new StepSkipped('the local stage has no GuardDuty: its EICAR-only scanner stands in');
    }
    if (!(await target()).scanning) {
      throw new StepSkipped('the stage does not scan (malwareScanning off): it has no plan');
    }
    const stackName = dataStackName(stage);
    return judgeMalwareProtectionPlan(await readMalwareProtectionPlan(stackName), stackName);
  });

/**
 * The direct upload's file copied to the options' deal by the operator's use case, as
 * `admin deal-file add --from-user-file` copies one: S3's CopyObject from `users/` to
 * `groups/`, which the bucket's tag lock must allow. The token's user deletes it again at the
 * clean up, so they must be an editor of the group.
 */
const dealFileCopy = (
  run: SmokeRun,
  target: () => Promise<StageTarget>,
  deal: DealRef,
  made: { readonly direct: SentFile | undefined; readonly userId: number | undefined },
) =>
  run.step(
    'deal-file copy (operator)',
    async () => {
      const { direct, userId } = made;
      // The step is skipped without them (an earlier step failed).
      if (direct === undefined || userId === undefined) throw new CheckFailed('nothing to copy');
      const { stage } = run.options;
      const ports = portsOn(await target());
      const { groupId, dealId } = deal;
      const { role } = await ports.dealFiles.access(userId, deal);
      if (role !== 'editor') {
        throw new CheckFailed(
          role === undefined
            ? `user ${String(userId)} is no member of group ${String(groupId)}, or deal ${String(dealId)} is not in it: make the group, the deal and the membership first (docs/operating.md, "Before the first run")`
            : `user ${String(userId)} is a ${role} of group ${String(groupId)}, and the clean up deletes the deal file as them: make them an editor (npm run --silent admin -- member add --group ${String(groupId)} --user ${String(userId)} --role editor --stage ${stage})`,
        );
      }
      const source = { kind: 'user-file', userId, fileId: direct.id } as const;
      const file = await addDealFile(ports, { deal, source }).catch((error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        throw new CheckFailed(
          isOutcome(error)
            ? `deal-file add refused: ${message}`
            : `deal-file add failed: ${message}: is the operator's copy (CopyObject to groups/) refused by the bucket's tag lock?`,
        );
      });
      run.createdDealFiles.push({ groupId, dealId, id: file.id });
      return `deal file ${String(file.id)} of deal ${String(dealId)}, copied from file ${String(direct.id)}`;
    },
    [made.direct, made.userId],
  );

/**
 * The steps that read the stage itself, when the options say where it is (not --http-only).
 * The stage is opened once, when a step first needs it; one that cannot be reached (no
 * credentials, no stack) fails each such step, saying why.
 */
export async function platformSteps(
  run: SmokeRun,
  direct: SentFile | undefined,
  userId: number | undefined,
): Promise<void> {
  const env = run.options.operatorEnv;
  if (env === undefined) return;
  let opening: Promise<StageTarget> | undefined;
  const target = () => (opening ??= stageTarget(run.options.stage, env));
  try {
    await bucketNotifications(run, target);
    await planActive(run, target);
    const { deal } = run.options;
    if (deal !== undefined) {
      await dealFileCopy(run, target, deal, { direct, userId });
      const copy = run.createdDealFiles.at(-1)?.id;
      const entry = await dealFileDownloadEntry(run, target, deal, copy);
      await sealedAndVerified(run, target, entry);
    }
    await digestLock(run, target);
  } finally {
    (await opening?.catch(() => undefined))?.close();
  }
}
