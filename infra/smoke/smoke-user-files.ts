import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { CheckFailed, type SentFile, type SmokeRun } from './smoke-run.ts';

export const UserFileBody = z.object({ id: z.number(), filesize: z.number() });
const UsageAmount = z.object({ used: z.number(), reserved: z.number(), allowed: z.number() });
const UsageBody = z.object({ files: UsageAmount, bytes: UsageAmount });

/** A multipart upload of one file, recorded for the clean up once the stage took it (201). */
export async function uploadFile(run: SmokeRun, name: string, file: Blob, what: string) {
  const form = new FormData();
  form.set('name', name);
  form.set('type', 'raw_data');
  form.set('file', file, name);
  const response = await run.call('/api/v1/user/me/file', {
    method: 'POST',
    headers: run.auth,
    body: form,
  });
  await run.expectStatus(response, 201, what);
  const recorded = await run.json(response, UserFileBody, what);
  run.created.push(recorded.id);
  return recorded;
}

export const listFiles = (run: SmokeRun) =>
  run.step('list files', async () => {
    const response = await run.call('/api/v1/user/me/file', { headers: run.auth });
    await run.expectStatus(response, 200, 'list');
    const files = await run.json(response, z.array(z.unknown()), 'list');
    return `${String(files.length)} file(s)`;
  });

/** The multipart upload step: the file it stored, or undefined when it failed. */
export async function multipartUpload(run: SmokeRun): Promise<SentFile | undefined> {
  let uploaded: SentFile | undefined;
  await run.step('multipart upload', async () => {
    const bytes = randomBytes(64 * 1024);
    const name = 'smoke-check.bin';
    const blob = new Blob([bytes], { type: 'application/octet-stream' });
    const file = await uploadFile(run, name, blob, 'upload');
    if (file.filesize !== bytes.length) {
      throw new CheckFailed(
        `upload: recorded ${String(file.filesize)} bytes of ${String(bytes.length)}`,
      );
    }
    uploaded = { id: file.id, bytes };
    return `file ${String(file.id)}, ${String(bytes.length)} bytes`;
  });
  return uploaded;
}

export const usage = (run: SmokeRun) =>
  run.step('GET /api/v1/user/me/usage', async () => {
    const response = await run.call('/api/v1/user/me/usage', { headers: run.auth });
    await run.expectStatus(response, 200, 'usage');
    const counted = await run.json(response, UsageBody, 'usage');
    return `${String(counted.files.used)} of ${String(counted.files.allowed)} files, ${String(counted.bytes.used)} of ${String(counted.bytes.allowed)} bytes`;
  });
