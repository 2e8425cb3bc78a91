/**
 * The smoke check's steps, in groups: the front door, user files, the direct upload,
 * downloads and their digests, malware, realtime, notify. Each step is named as the report
 * shows it; `smoke-check.ts` runs them in order.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as z from 'zod';
import { FILE_DIGEST_HEADER } from '#shared/http/file-digest-header.ts';
import {
  base64Sha256,
  CheckFailed,
  type SentFile,
  sleep,
  type SmokeRun,
  StepSkipped,
} from './smoke-run.ts';

/** The stage answers in public (its OpenAPI document) and its authorizer guards the rest. */
export async function frontDoor(run: SmokeRun): Promise<void> {
  await run.step('GET /openapi.json', async () => {
    const response = await run.call('/openapi.json');
    await run.expectStatus(response, 200, 'openapi.json');
    const document = (await response.json().catch(() => undefined)) as
      { openapi?: unknown; paths?: Record<string, unknown> } | undefined;
    if (typeof document?.openapi !== 'string' || document.paths === undefined) {
      throw new CheckFailed('openapi.json: not an OpenAPI document');
    }
    return `OpenAPI ${document.openapi}, ${String(Object.keys(document.paths).length)} paths`;
  });

  await run.step('no token: 401', async () => {
    const response = await run.call('/api/v1/user/me/file');
    await run.expectStatus(response, 401, 'a request without a token');
    const body = await response.text();
    if (body !== '{"message":"Unauthorized"}') {
      throw new CheckFailed(
        `a request without a token: 401 ${body.slice(0, 200)}, not the authorizer's`,
      );
    }
    return "the authorizer's answer";
  });
}

const UserFileBody = z.object({ id: z.number(), filesize: z.number() });
const UsageAmount = z.object({ used: z.number(), reserved: z.number(), allowed: z.number() });
const UsageBody = z.object({ files: UsageAmount, bytes: UsageAmount });

/** A multipart upload of one file, recorded for the clean up once the stage took it (201). */
async function uploadFile(run: SmokeRun, name: string, file: Blob, what: string) {
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
    // The one call of it only a deployed bucket can refuse is the copy to users/: a 5xx is
    // most likely the bucket's tag lock refusing it.
    if (response.status >= 500) {
      throw new CheckFailed(
        `complete: ${String(response.status)} ${(await response.text()).slice(0, 200)} (expected 201): is the completion's copy (CopyObject, TaggingDirective REPLACE) refused by the bucket's tag lock? See CompleteDirectUpload's log`,
      );
    }
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

const NOT_UPLOADED = '{"detail":"The file has not been uploaded yet"}';

/**
 * S3 checks a signed form's bytes against its `x-amz-checksum-sha256` field and refuses others
 * with 400 BadDigest, storing nothing: no AWS page found says so for POST, so each deployed
 * stage proves it here. The same form then takes the declared bytes. The local object store
 * checks no form's checksum: there the step shows the completion refusing them instead, and
 * is skipped, saying so.
 */
export const otherBytesBadDigest = (run: SmokeRun) =>
  run.step('signed form: other bytes, 400 BadDigest', async () => {
    const declared = randomBytes(1024);
    const name = 'smoke-check-digest.bin';
    const ticket = await startDirectUpload(run, name, declared.length, base64Sha256(declared));
    const posted = await postSignedForm(run, ticket, randomBytes(declared.length), name);
    const answer = (await posted.text()).slice(0, 200);
    if (posted.status >= 200 && posted.status <= 299) {
      // Taken: the completion must refuse them (400), as it does bytes written past a form.
      const refused = (await completed(run, ticket.id)).status;
      if (run.options.stage === 'local' && refused === 400) {
        throw new StepSkipped(
          "the local object store checks no form's checksum (S3 answers 400 BadDigest): it took the bytes, and the completion refused them (400)",
        );
      }
      throw new CheckFailed(
        `the signed form took other bytes than its x-amz-checksum-sha256 (${String(posted.status)}), expected 400 BadDigest; the completion then answered ${String(refused)}`,
      );
    }
    if (posted.status !== 400 || !answer.includes('<Code>BadDigest</Code>')) {
      throw new CheckFailed(
        `the signed form, other bytes than its x-amz-checksum-sha256: ${String(posted.status)} ${answer} (expected 400 BadDigest)`,
      );
    }
    // Nothing was stored, so nothing was completed.
    const complete = `/api/v1/user/me/file/upload/${String(ticket.id)}/complete`;
    const early = await run.call(complete, { method: 'POST', headers: run.auth });
    const earlyBody = (await early.text()).slice(0, 200);
    if (early.status !== 409 || earlyBody !== NOT_UPLOADED) {
      throw new CheckFailed(
        `complete after BadDigest: ${String(early.status)} ${earlyBody} (expected 409 ${NOT_UPLOADED})`,
      );
    }
    const own = await postSignedForm(run, ticket, declared, name);
    if (own.status < 200 || own.status > 299) {
      throw new CheckFailed(
        `the signed form, its declared bytes: ${String(own.status)} ${(await own.text()).slice(0, 200)} (expected 204)`,
      );
    }
    await run.expectStatus(await completed(run, ticket.id), 201, 'complete the declared bytes');
    return 'other bytes: 400 BadDigest, nothing stored (complete: 409); the declared bytes taken, completed (201)';
  });

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** The wait between two looks at a held download: its Retry-After, within bounds. */
const retryAfterMs = (response: Response, maxMs: number): number => {
  const seconds = Number(response.headers.get('retry-after'));
  return Math.min(Math.max(Number.isFinite(seconds) ? seconds * 1000 : 1000, 250), maxMs);
};

/** A user file's download route. */
const userFileDownload = (id: number) => `/api/v1/user/me/file/${String(id)}/download`;

/**
 * A download route's answer (a user file's or a deal file's) once the file's scan is over:
 * while it says 409 with a Retry-After (the scan under way) it is asked again when that says,
 * for at most the scan wait. A 409 without one is a file held for an operator, not a scan to
 * wait for.
 */
async function settledDownload(
  run: SmokeRun,
  path: string,
): Promise<{ response: Response; held: number; seconds: number }> {
  const started = Date.now();
  const deadline = started + (run.options.scanWaitMs ?? 300_000);
  const seconds = () => Math.round((Date.now() - started) / 1000);
  for (let held = 0; ; held += 1) {
    const response = await run.call(path, { headers: run.auth });
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

/**
 * The bytes a download route's link serves (the link is followed without the API token):
 * `path` is the route, a user file's or a deal file's.
 */
export async function download(
  run: SmokeRun,
  path: string,
): Promise<{ bytes: Buffer; held: string; digest: string | null }> {
  const { response: link, held, seconds } = await settledDownload(run, path);
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
      const got = await download(run, userFileDownload(sent.id));
      if (sha256(got.bytes) !== sha256(sent.bytes)) throw new CheckFailed('the download differs');
      // The digest the API tells is the bytes' own, as recorded when they were stored.
      if (got.digest !== base64Sha256(got.bytes)) {
        throw new CheckFailed(`the ${FILE_DIGEST_HEADER} header is ${String(got.digest)}`);
      }
      return `same bytes, same SHA-256${got.held}`;
    },
    [sent],
  );

const DetailBody = z.object({ detail: z.string() });

/**
 * The anti-malware test file's 68 bytes (eicar.org), which every scanner reports as a threat
 * and which harms nothing. Split so that no scanner flags this source file.
 */
const EICAR = Buffer.from(
  ['X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR', '-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*'].join(''),
  'latin1',
);

/** The EICAR step: when its file was uploaded (a minute early), or undefined when it failed. */
async function eicarRefused(run: SmokeRun): Promise<Date | undefined> {
  let infectedAt: Date | undefined;
  await run.step('EICAR file: held, refused, deleted', async () => {
    // A minute early: CloudWatch keeps data points by the minute.
    const uploadedAt = new Date(Date.now() - 60_000);
    const what = 'upload the EICAR test file';
    const blob = new Blob([EICAR], { type: 'text/plain' });
    const { id } = await uploadFile(run, 'smoke-check-eicar.txt', blob, what);
    const { response: refused, held, seconds } = await settledDownload(run, userFileDownload(id));
    if (refused.status >= 300 && refused.status <= 399) {
      throw new CheckFailed(
        `the EICAR test file's download was not refused (${String(refused.status)}): does the stage scan (malwareScanning)?`,
      );
    }
    await run.expectStatus(refused, 403, "the EICAR test file's download");
    const { detail } = await run.json(refused, DetailBody, "the EICAR test file's download");
    // Its owner may still delete it.
    const deleted = await run.call(`/api/v1/user/me/file/${String(id)}`, {
      method: 'DELETE',
      headers: run.auth,
    });
    await run.expectStatus(deleted, 204, 'delete the EICAR test file');
    run.created.splice(run.created.indexOf(id), 1);
    const first = held === 0 ? '' : `held (409) ${String(held)}× over ${String(seconds)} s, then `;
    infectedAt = uploadedAt;
    return `file ${String(id)}: ${first}403 "${detail}"; deleted. Its ThreatsFound alarm should fire now`;
  });
  return infectedAt;
}

/** The stage's ThreatsFound metric counts the infected file, within the metrics' wait. */
const threatsCounted = (
  run: SmokeRun,
  counted: (since: Date) => Promise<number>,
  infectedAt: Date | undefined,
) =>
  run.step(
    'ThreatsFound counted',
    async () => {
      // Metrics reach CloudWatch a minute or two after the verdict: asked again until then.
      const waitMs = run.options.metricsWaitMs ?? 300_000;
      const deadline = Date.now() + waitMs;
      for (let looks = 1; ; looks += 1) {
        const found = await counted(infectedAt ?? new Date());
        if (found > 0) return `${String(found)} in the stage's metrics (look ${String(looks)})`;
        if (Date.now() >= deadline) {
          throw new CheckFailed(
            `no ThreatsFound data point within ${String(waitMs / 1000)} s: is the verdict function recording (its log, the ScanEventFailures queue)?`,
          );
        }
        await sleep(Math.min(15_000, Math.max(0, deadline - Date.now())));
      }
    },
    [infectedAt],
  );

/** On a stage that scans: an infected file is refused, deleted, and (if asked) counted. */
export async function malwareRefused(run: SmokeRun): Promise<void> {
  if (!run.options.malwareScanning || run.options.skipEicar === true) return;
  const infectedAt = await eicarRefused(run);
  const counted = run.options.threatsCountedSince;
  if (counted !== undefined) await threatsCounted(run, counted, infectedAt);
}

const TokenBody = z.object({ token: z.string() });

/**
 * What a realtime token for these room ids says, once it verifies against the JWKS: the rooms
 * it opens and its subject, the token's user id.
 */
const realtimeTokens = (run: SmokeRun) => {
  const jwks = createRemoteJWKSet(new URL(`${run.base}/api/v1/auth/realtime-jwks.json`), {
    timeoutDuration: run.timeoutMs,
  });
  return async (roomIds: string[]) => {
    const response = await run.call('/api/v1/auth/get-realtime-token', {
      method: 'POST',
      headers: { ...run.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ room_ids: roomIds }),
    });
    await run.expectStatus(response, 200, 'realtime token');
    const { token } = await run.json(response, TokenBody, 'realtime token');
    try {
      const { payload } = await jwtVerify(token, jwks);
      const rooms = payload.rooms;
      if (typeof rooms !== 'object' || rooms === null) throw new CheckFailed('no rooms claim');
      return { rooms: Object.keys(rooms).sort(), subject: payload.sub };
    } catch (error) {
      if (error instanceof CheckFailed) throw error;
      throw new CheckFailed(
        `the token does not verify against the published JWKS: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  };
};

/**
 * A token for no rooms opens none; one for the options' deal room (if any) opens just it.
 * Answers the token's user id, as the realtime token names it (its `sub`), or undefined when
 * that step failed.
 */
export async function realtimeRooms(run: SmokeRun): Promise<number | undefined> {
  const realtimeToken = realtimeTokens(run);
  let userId: number | undefined;
  await run.step('realtime token, no rooms', async () => {
    const { rooms, subject } = await realtimeToken([]);
    if (rooms.length > 0) throw new CheckFailed(`the token opens ${rooms.join(', ')}`);
    if (!/^[1-9][0-9]*$/.test(subject ?? '')) {
      throw new CheckFailed(`the token's sub is ${String(subject)}, not a user id`);
    }
    userId = Number(subject);
    return `user ${String(userId)}, verified against the JWKS`;
  });

  if (run.options.deal === undefined) return userId;
  const { groupId, dealId } = run.options.deal;
  const roomId = `${run.options.stage}:v1:group:${String(groupId)}:deal:${String(dealId)}`;
  await run.step('realtime token, deal room', async () => {
    const { rooms } = await realtimeToken([roomId]);
    if (rooms.join() !== roomId)
      throw new CheckFailed(`the token opens ${rooms.join(', ') || 'no room'}`);
    return `${roomId}, verified`;
  });
  return userId;
}

const AcceptedBody = z.object({ notification_id: z.string(), status: z.string() });
const NotificationBody = z.object({ status: z.string() });

/** One real chat message for the uploaded file, followed until it is sent (or a minute). */
export const notifySent = (run: SmokeRun, uploaded: SentFile | undefined) =>
  run.step(
    'notify, sent',
    async () => {
      const response = await run.call('/api/v1/user/me/file/notify', {
        method: 'POST',
        headers: { ...run.auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          file_ids: [(uploaded as SentFile).id],
          message: 'Smoke check',
        }),
      });
      await run.expectStatus(response, 202, 'notify');
      const accepted = await run.json(response, AcceptedBody, 'notify');
      const path = `/api/v1/user/me/file/notify/${accepted.notification_id}`;
      const deadline = Date.now() + 60_000;
      let status = accepted.status;
      while (status !== 'sent' && Date.now() < deadline) {
        if (status === 'failed' || status === 'unconfirmed') break;
        await sleep(500);
        const polled = await run.call(path, { headers: run.auth });
        await run.expectStatus(polled, 200, 'notification status');
        status = (await run.json(polled, NotificationBody, 'notification status')).status;
      }
      if (status !== 'sent') throw new CheckFailed(`the notification is ${status}`);
      return `notification ${accepted.notification_id} sent`;
    },
    [uploaded],
  );
