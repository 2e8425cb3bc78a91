import { createHash } from 'node:crypto';
import { FILE_DIGEST_HEADER } from '#shared/http/file-digest-header.ts';
import { base64Sha256, CheckFailed, type SentFile, sleep, type SmokeRun } from './smoke-run.ts';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** The wait between two looks at a held download: its Retry-After, within bounds. */
const retryAfterMs = (response: Response, maxMs: number): number => {
  const seconds = Number(response.headers.get('retry-after'));
  return Math.min(Math.max(Number.isFinite(seconds) ? seconds * 1000 : 1000, 250), maxMs);
};

/**
 * The download route's answer once the file's scan is over: while it says 409 with a
 * Retry-After (the scan under way) it is asked again when that says, for at most the scan
 * wait. A 409 without one is a file held for an operator, not a scan to wait for.
 */
export async function settledDownload(
  run: SmokeRun,
  id: number,
): Promise<{ response: Response; held: number; seconds: number }> {
  const started = Date.now();
  const deadline = started + (run.options.scanWaitMs ?? 300_000);
  const seconds = () => Math.round((Date.now() - started) / 1000);
  for (let held = 0; ; held += 1) {
    const response = await run.call(`/api/v1/user/me/file/${String(id)}/download`, {
      headers: run.auth,
    });
    if (response.status !== 409) return { response, held, seconds: seconds() };
    const wait = retryAfterMs(response, run.options.retryAfterMaxMs ?? 10_000);
    const pending = response.headers.get('retry-after') !== null;
    const body = (await response.text()).slice(0, 200);
    if (!pending) throw new CheckFailed(`download: held for an operator (409) ${body}`);
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new CheckFailed(
        `download: still held (409) after ${String(seconds())} s, the scan's wait: ${body}`,
      );
    }
    await sleep(Math.min(wait, left));
  }
}

/** The bytes a file's download link serves (the link is followed without the API token). */
async function download(
  run: SmokeRun,
  id: number,
): Promise<{ bytes: Buffer; held: string; digest: string | null }> {
  const { response: link, held, seconds } = await settledDownload(run, id);
  const location = link.headers.get('location');
  if (link.status < 300 || link.status > 399 || location === null) {
    await run.expectStatus(link, 302, 'download');
    throw new CheckFailed('download: a redirect without a Location');
  }
  const file = await run.call(location);
  await run.expectStatus(file, 200, 'the download link');
  return {
    bytes: Buffer.from(await file.arrayBuffer()),
    held: held === 0 ? '' : `, held (409) ${String(held)}× over ${String(seconds)} s first`,
    digest: link.headers.get(FILE_DIGEST_HEADER),
  };
}

/** The step after an upload: its download serves the bytes sent (skipped when none were). */
export const compareDownload = (run: SmokeRun, sent: SentFile | undefined) =>
  run.step(
    'download it, compare',
    async () => {
      if (sent === undefined) throw new CheckFailed('nothing was uploaded');
      const got = await download(run, sent.id);
      if (sha256(got.bytes) !== sha256(sent.bytes)) throw new CheckFailed('the download differs');
      // The digest the API tells is the bytes' own, as recorded when they were stored.
      if (got.digest !== base64Sha256(got.bytes)) {
        throw new CheckFailed(`the ${FILE_DIGEST_HEADER} header is ${String(got.digest)}`);
      }
      return `same bytes, same SHA-256${got.held}`;
    },
    [sent],
  );
