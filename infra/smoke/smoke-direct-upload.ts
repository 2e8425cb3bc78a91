import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { UserFileBody } from './smoke-user-files.ts';
import { base64Sha256, CheckFailed, type SentFile, sleep, type SmokeRun } from './smoke-run.ts';

const TicketBody = z.object({
  id: z.number(),
  url: z.string(),
  fields: z.record(z.string(), z.string()),
});

/** A direct upload of these bytes, signed with their SHA-256 (a later delete takes it). */
async function startDirectUpload(run: SmokeRun, name: string, size: number, sha256: string) {
  const started = await run.call('/api/v1/user/me/file/upload', {
    method: 'POST',
    headers: { ...run.auth, 'content-type': 'application/json' },
    // The digest is signed into the form: S3 takes only bytes with it.
    body: JSON.stringify({ name, type: 'raw_data', filesize: size, sha256 }),
  });
  await run.expectStatus(started, 201, 'start a direct upload');
  const ticket = await run.json(started, TicketBody, 'start a direct upload');
  run.created.push(ticket.id);
  return ticket;
}

/** The signed form, posted as a browser posts it: its fields, then the bytes. */
function postSignedForm(
  run: SmokeRun,
  ticket: z.infer<typeof TicketBody>,
  bytes: Buffer,
  name: string,
) {
  const form = new FormData();
  for (const [field, value] of Object.entries(ticket.fields)) form.set(field, value);
  form.set('file', new Blob([bytes]), name);
  return run.call(ticket.url, { method: 'POST', body: form });
}

/** The complete call's answer, once the S3 event's finalizer no longer holds it (409). */
async function completed(run: SmokeRun, id: number): Promise<Response> {
  const complete = `/api/v1/user/me/file/upload/${String(id)}/complete`;
  for (const wait of [250, 500, 1000, 2000, 4000]) {
    const response = await run.call(complete, { method: 'POST', headers: run.auth });
    if (response.status !== 409) return response;
    await sleep(wait);
  }
  const response = await run.call(complete, { method: 'POST', headers: run.auth });
  if (response.status === 409) throw new CheckFailed('complete: still in progress');
  return response;
}

/** The direct upload step: the file it stored, or undefined when it failed. */
export async function directUpload(run: SmokeRun): Promise<SentFile | undefined> {
  let direct: SentFile | undefined;
  await run.step('direct upload, complete', async () => {
    const bytes = randomBytes(run.options.directUploadBytes ?? 3 * 1024 * 1024);
    const name = 'smoke-check-direct.bin';
    const ticket = await startDirectUpload(run, name, bytes.length, base64Sha256(bytes));
    const posted = await postSignedForm(run, ticket, bytes, name);
    if (posted.status < 200 || posted.status > 299) {
      throw new CheckFailed(
        `the signed form: ${String(posted.status)} ${(await posted.text()).slice(0, 200)}`,
      );
    }
    const response = await completed(run, ticket.id);
    await run.expectStatus(response, 201, 'complete');
    const file = await run.json(response, UserFileBody, 'complete');
    if (file.filesize !== bytes.length) {
      throw new CheckFailed(
        `complete: recorded ${String(file.filesize)} bytes of ${String(bytes.length)}`,
      );
    }
    direct = { id: file.id, bytes };
    return `file ${String(file.id)}, ${String(bytes.length)} bytes`;
  });
  return direct;
}

/** Bytes other than the SHA-256 the upload declared are refused, by S3 or by the completion. */
export const otherBytesRefused = (run: SmokeRun) =>
  run.step('declared SHA-256, other bytes: refused', async () => {
    const declared = randomBytes(1024);
    const name = 'smoke-check-digest.bin';
    const ticket = await startDirectUpload(run, name, declared.length, base64Sha256(declared));
    const posted = await postSignedForm(run, ticket, randomBytes(declared.length), name);
    const answer = await posted.text();
    // S3 checks the form's signed checksum itself (400 BadDigest); a store that does not (the
    // local stand-in) takes the bytes, and the completion refuses them.
    if (posted.status === 400 && answer.includes('BadDigest')) return 'S3 refused them: BadDigest';
    if (posted.status < 200 || posted.status > 299) {
      throw new CheckFailed(`the signed form: ${String(posted.status)} ${answer.slice(0, 200)}`);
    }
    await run.expectStatus(
      await completed(run, ticket.id),
      400,
      'complete bytes of another digest',
    );
    return 'the store took them; the completion refused them (400)';
  });
