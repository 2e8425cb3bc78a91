import {
  compareDownload,
  directUpload,
  frontDoor,
  listFiles,
  malwareRefused,
  multipartUpload,
  notifySent,
  otherBytesRefused,
  realtimeRooms,
  usage,
} from './smoke-steps.ts';
import {
  CheckFailed,
  type SmokeOptions,
  type SmokeRun,
  startRun,
  type StepResult,
} from './smoke-run.ts';

/** Every file the run made and did not delete itself, deleted: the last step, always taken. */
const cleanUp = (run: SmokeRun) =>
  run.step('clean up', async () => {
    const left: number[] = [];
    for (const id of run.created) {
      const response = await run
        .call(`/api/v1/user/me/file/${String(id)}`, { method: 'DELETE', headers: run.auth })
        .catch(() => undefined);
      if (response?.status !== 204) left.push(id);
    }
    if (left.length > 0) throw new CheckFailed(`files left behind: ${left.join(', ')}`);
    return run.created.length === 0 ? 'nothing to delete' : `deleted ${run.created.join(', ')}`;
  });

/**
 * The black-box check of a deployed stage: what a client does, through public HTTP only,
 * each step timed. Steps that need another's result are skipped when it failed; the files
 * it made are deleted at the end whatever happened. Its body lists the steps in their order.
 */
export async function runSmokeCheck(options: SmokeOptions): Promise<StepResult[]> {
  const run = startRun(options);
  await frontDoor(run);
  await listFiles(run);
  const uploaded = await multipartUpload(run);
  await compareDownload(run, uploaded);
  const direct = await directUpload(run);
  await compareDownload(run, direct);
  await otherBytesRefused(run);
  await usage(run);
  await malwareRefused(run);
  await realtimeRooms(run);
  if (options.notify) await notifySent(run, uploaded);
  await cleanUp(run);
  return run.results;
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
