import { platformSteps } from './smoke-platform.ts';
import {
  compareDownload,
  directUpload,
  frontDoor,
  listFiles,
  malwareRefused,
  multipartUpload,
  notifySent,
  otherBytesBadDigest,
  realtimeRooms,
  usage,
} from './smoke-steps.ts';
import {
  CheckFailed,
  planRun,
  type SmokeOptions,
  type SmokeRun,
  startRun,
  type StepResult,
} from './smoke-run.ts';

/**
 * Every file the run made and did not delete itself, deleted through the API as its user:
 * deal files first (an editor's DELETE), then the user's. The last step, always taken.
 */
const cleanUp = (run: SmokeRun) =>
  run.step('clean up', async () => {
    const paths = [
      ...run.createdDealFiles.map(
        (file) =>
          `/api/v1/group/${String(file.groupId)}/deal/${String(file.dealId)}/file/${String(file.id)}`,
      ),
      ...run.created.map((id) => `/api/v1/user/me/file/${String(id)}`),
    ];
    const left: string[] = [];
    for (const path of paths) {
      const response = await run
        .call(path, { method: 'DELETE', headers: run.auth })
        .catch(() => undefined);
      if (response?.status !== 204) left.push(path);
    }
    if (left.length > 0) throw new CheckFailed(`left behind: ${left.join(', ')}`);
    const files = [
      ...run.createdDealFiles.map((file) => `deal file ${String(file.id)}`),
      ...run.created,
    ];
    return files.length === 0 ? 'nothing to delete' : `deleted ${files.join(', ')}`;
  });

/**
 * The check of a deployed stage: what a client does, through public HTTP, then what only the
 * stage's own stacks show (unless asked for HTTP only), each step timed. Steps that need
 * another's result are skipped when it failed, and those the stage cannot answer say why; the
 * files it made are deleted at the end whatever happened.
 */
export const runSmokeCheck = (options: SmokeOptions): Promise<StepResult[]> =>
  takeSteps(startRun(options));

/** The names of the steps a run with these options takes, in order, none of them taken. */
export const plannedSteps = async (options: SmokeOptions): Promise<string[]> =>
  (await takeSteps(planRun(options))).map((result) => result.step);

/** Every step of the check, in order: the one place that lists them. */
async function takeSteps(run: SmokeRun): Promise<StepResult[]> {
  const { options } = run;
  await frontDoor(run);
  await listFiles(run);
  const uploaded = await multipartUpload(run);
  await compareDownload(run, uploaded);
  const direct = await directUpload(run);
  await compareDownload(run, direct);
  await otherBytesBadDigest(run);
  await usage(run);
  await malwareRefused(run);
  const userId = await realtimeRooms(run);
  await platformSteps(run, direct, userId);
  if (options.notify) await notifySent(run, uploaded);
  await cleanUp(run);
  return run.results;
}

/**
 * The run's last line: how many steps passed, and how many failed or were skipped. A step
 * skipped because the stage cannot answer it is no failure; one skipped after an earlier
 * failure comes with that failure.
 */
export function summaryOf(results: readonly StepResult[]): string {
  const count = (status: StepResult['status']) =>
    results.filter((result) => result.status === status).length;
  const [passed, failed, skipped] = [count('ok'), count('failed'), count('skipped')];
  const total = String(results.length);
  if (failed > 0) {
    return `${String(failed)} of ${total} steps failed${skipped > 0 ? `, ${String(skipped)} skipped` : ''}`;
  }
  return skipped === 0
    ? `all ${total} steps passed`
    : `${String(passed)} of ${total} steps passed, ${String(skipped)} skipped, none failed`;
}

/** The results as a table: step, status, time, then what was seen. */
export function formatResults(results: readonly StepResult[]): string {
  const rows = [
    ['step', 'status', 'time', 'detail'],
    ...results.map((r) => [
      r.step,
      r.status,
      r.status === 'skipped' ? '-' : `${String(Math.round(r.ms))} ms`,
      r.detail,
    ]),
  ];
  const widths = [0, 1, 2].map((column) =>
    Math.max(...rows.map((row) => (row[column] ?? '').length)),
  );
  return rows
    .map((row) =>
      row
        .map((cell, column) => (column < 3 ? cell.padEnd(widths[column] ?? 0) : cell))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
