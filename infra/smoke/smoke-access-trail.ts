/**
 * The smoke check's steps on the access trail: a deal file's download leaves its entry in the
 * deal's trail; the stage's sealer seals it and `access verify` finds the chain whole; the
 * digest bucket is locked as the data stack says. Read as the operator CLI reads the stage.
 */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import {
  GetObjectLockConfigurationCommand,
  type GetObjectLockConfigurationCommandOutput,
} from '@aws-sdk/client-s3';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { sealAccessTrailFunction } from '#functions/seal-access-trail/function.ts';
import { fromAccessEntryItem } from '#shared/access-trail/adapters/access-entry-item.ts';
import { DynamoTrailHashes } from '#shared/access-trail/adapters/dynamo-trail-hashes.ts';
import { SEAL_GRACE_SECONDS } from '#shared/access-trail/seal-access-trail.ts';
import { parseDigest } from '#shared/access-trail/trail-digest.ts';
import { verifyAccessTrail } from '#shared/access-trail/verify-access-trail.ts';
import type { DealRef } from '#shared/groups/group.ts';
import { portsOn } from '#infra/admin/operator-ports.ts';
import { readStackOutputs } from '#infra/admin/stack-outputs.ts';
import type { StageTarget } from '#infra/admin/stage-target.ts';
import { apiStackName, functionNameOutput } from '#infra/stages.ts';
import { CheckFailed, sleep, type SmokeRun, StepSkipped } from './smoke-run.ts';
import { download } from './smoke-steps.ts';

/** An entry found in the trail: its keys, and the instant its key files it at. */
interface FoundEntry {
  readonly scope: string;
  readonly entry: string;
  readonly at: string;
}

/** How long the trail's time index may take to show a new entry. */
const INDEX_WAIT_MS = 10_000;

/**
 * The deal file's download entry, from the trail's time index: written before the link was
 * handed out, so there once the download answered, give or take the index's lag.
 */
async function downloadEntry(
  target: StageTarget,
  deal: DealRef,
  fileId: number,
  since: string,
): Promise<FoundEntry | undefined> {
  const { dynamodb, TRAIL_TABLE_NAME } = target.sources;
  const trail = new DynamoTrailHashes(dynamodb(), TRAIL_TABLE_NAME);
  const deadline = Date.now() + INDEX_WAIT_MS;
  for (;;) {
    const through = new Date(Date.now() + 1000).toISOString();
    for (const item of await trail.itemsFiledBetween(since, through)) {
      const entry = fromAccessEntryItem(unmarshall(item));
      const ours =
        entry.action === 'deal_file.download' &&
        entry.outcome === 'allowed' &&
        entry.groupId === deal.groupId &&
        entry.dealId === deal.dealId &&
        entry.fileId === fileId;
      if (ours) return { scope: item.scope?.S ?? '', entry: item.entry?.S ?? '', at: entry.at };
    }
    if (Date.now() >= deadline) return undefined;
    await sleep(1000);
  }
}

/**
 * The deal file the operator copied, downloaded by the token's user (a member of the deal):
 * the bytes served, and the `deal_file.download` entry that the link waited for.
 */
export async function dealFileDownloadEntry(
  run: SmokeRun,
  target: () => Promise<StageTarget>,
  deal: DealRef,
  fileId: number | undefined,
): Promise<FoundEntry | undefined> {
  let found: FoundEntry | undefined;
  await run.step(
    'deal file: download, its trail entry',
    async () => {
      const id = fileId ?? 0;
      const since = new Date(Date.now() - 1000).toISOString();
      const path = `/api/v1/group/${String(deal.groupId)}/deal/${String(deal.dealId)}/file/${String(id)}/download`;
      const got = await download(run, path);
      found = await downloadEntry(await target(), deal, id, since);
      if (found === undefined) {
        throw new CheckFailed(
          `deal file ${String(id)}: downloaded (${String(got.bytes.length)} bytes), but no deal_file.download entry for it in the deal's trail within ${String(INDEX_WAIT_MS / 1000)} s`,
        );
      }
      return `deal file ${String(id)}: ${String(got.bytes.length)} bytes${got.held}; entry ${found.entry} in ${found.scope}`;
    },
    [fileId],
  );
  return found;
}

/** The deployed sealer, run once now (as its schedule runs it): what it says it did. */
async function invokeSealer(stage: SmokeRun['options']['stage']): Promise<string> {
  const stackName = apiStackName(stage);
  const output = functionNameOutput(sealAccessTrailFunction.id);
  const functionName = (await readStackOutputs(stackName, stage))[output];
  if (functionName === undefined) {
    throw new CheckFailed(`stack ${stackName} has no ${output} output: deploy it first`);
  }
  const lambda = new LambdaClient({});
  try {
    const { FunctionError, Payload } = await lambda.send(
      new InvokeCommand({ FunctionName: functionName, Payload: new TextEncoder().encode('{}') }),
    );
    const answer = new TextDecoder().decode(Payload);
    if (FunctionError !== undefined) {
      throw new CheckFailed(`${functionName} failed (${FunctionError}): ${answer.slice(0, 300)}`);
    }
    return answer;
  } finally {
    lambda.destroy();
  }
}

/** The seq of the digest that lists the entry, reading back from the newest. */
async function sealedIn(ports: ReturnType<typeof portsOn>, found: FoundEntry) {
  const latest = await ports.trailDigests.latest();
  for (let seq = latest?.seq ?? 0; seq > 0; seq -= 1) {
    const digest = parseDigest((await ports.trailDigests.read(seq)) ?? new Uint8Array());
    if (digest === undefined) throw new CheckFailed(`digest ${String(seq)} cannot be read`);
    if (digest.entries.some((e) => e.scope === found.scope && e.entry === found.entry)) {
      return seq;
    }
    if (digest.sealedFrom <= found.entry) return undefined;
  }
  return undefined;
}

/**
 * On a deployed stage: once the entry is older than the seal's grace, the stage's sealer is
 * run (as its schedule would, a few minutes later), a digest lists the entry, and `access
 * verify` finds the whole chain clean. The local stage has no schedule: `access verify` there
 * finds it clean, the entry not sealed yet (`access seal` would seal it).
 */
export const sealedAndVerified = (
  run: SmokeRun,
  target: () => Promise<StageTarget>,
  found: FoundEntry | undefined,
) =>
  run.step(
    'access trail: sealed, verify clean',
    async () => {
      const entry = found ?? { scope: '', entry: '', at: '' };
      const ports = portsOn(await target());
      const local = run.options.stage === 'local';
      let sealed = 'the local stage has no schedule, and its entry is not sealed yet';
      if (!local) {
        // Sealable once a seal's end (now less the grace) is past it: a few minutes' wait.
        const sealable = Date.parse(entry.at) + (SEAL_GRACE_SECONDS + 5) * 1000;
        await sleep(Math.max(0, sealable - Date.now()));
        const answer = await invokeSealer(run.options.stage);
        const seq = await sealedIn(ports, entry);
        if (seq === undefined) {
          throw new CheckFailed(`the sealer ran (${answer}), but no digest lists ${entry.entry}`);
        }
        sealed = `sealed in digest ${String(seq)}`;
      }
      const report = await verifyAccessTrail(
        { trail: ports.trailHashes, digests: ports.trailDigests },
        { retentionDays: ports.trailRetentionDays },
      );
      if (!report.clean) {
        throw new CheckFailed(
          `access verify found something (npm run --silent admin -- access verify --stage ${run.options.stage}): ${JSON.stringify(report).slice(0, 400)}`,
        );
      }
      return `${sealed}; verify clean: ${String(report.digests)} digests, ${String(report.entriesVerified)} entries verified, ${String(report.notYetSealed)} not yet sealed`;
    },
    [found],
  );

/**
 * What S3 says of the digest bucket's lock, held to the data stack's: compliance mode, for the
 * stage's retention. Any other answer names what differs.
 */
export function judgeDigestLock(
  answer: Pick<GetObjectLockConfigurationCommandOutput, 'ObjectLockConfiguration'>,
  retentionDays: number,
): string {
  const config = answer.ObjectLockConfiguration;
  const retention = config?.Rule?.DefaultRetention;
  const found = `${String(config?.ObjectLockEnabled)}, ${String(retention?.Mode)} ${String(retention?.Days ?? retention?.Years)} ${retention?.Years === undefined ? 'days' : 'years'}`;
  if (
    config?.ObjectLockEnabled !== 'Enabled' ||
    retention?.Mode !== 'COMPLIANCE' ||
    retention.Days !== retentionDays
  ) {
    throw new CheckFailed(
      `the digest bucket's Object Lock is ${found}, not Enabled, COMPLIANCE ${String(retentionDays)} days (accessTrailRetentionDays)`,
    );
  }
  return `Enabled, COMPLIANCE, ${String(retentionDays)} days`;
}

/** The digest bucket's Object Lock, read back from S3: the lock only AWS can prove. */
export const digestLock = (run: SmokeRun, target: () => Promise<StageTarget>) =>
  run.step('digest bucket: Object Lock, COMPLIANCE', async () => {
    if (run.options.stage === 'local') {
      throw new StepSkipped(
        'the local stage keeps its digests in its one bucket, with no lock (docs/local-stage-limits.md)',
      );
    }
    const { sources } = await target();
    const answer = await sources
      .s3()
      .send(new GetObjectLockConfigurationCommand({ Bucket: sources.TRAIL_DIGEST_BUCKET_NAME }));
    return judgeDigestLock(answer, sources.ACCESS_TRAIL_RETENTION_DAYS);
  });
