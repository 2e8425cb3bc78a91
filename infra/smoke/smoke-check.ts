import { createHash, randomBytes } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as z from 'zod';
import { FILE_DIGEST_HEADER } from '#shared/http/file-digest-header.ts';

/**
 * The black-box check of a deployed stage: what a client does, through public HTTP only,
 * each step timed. Steps that need another's result are skipped when it failed; the files
 * it made are deleted at the end whatever happened.
 */
export interface SmokeOptions {
  /** The stage's API URL (the ApiUrl output). */
  readonly url: string;
  /** A bearer token the stage's issuer signed, for a user the check may write files for. */
  readonly token: string;
  /** The stage's name: room ids start with it. */
  readonly stage: string;
  /** A deal whose room the token's user may join: its token is asked for too. */
  readonly deal?: { readonly groupId: number; readonly dealId: number };
  /** Send one real chat message for the files uploaded. */
  readonly notify: boolean;
  /**
   * Whether the stage scans stored files for malware (its malwareScanning setting): then a
   * file holding the EICAR test string is uploaded too, and its download must be refused.
   */
  readonly malwareScanning: boolean;
  /**
   * How long a file's download may stay held (409) while its scan is under way.
   *
   * @default 5 minutes
   */
  readonly scanWaitMs?: number;
  /**
   * The longest wait before a held download is asked again: its Retry-After, at most this.
   *
   * @default 10 s
   */
  readonly retryAfterMaxMs?: number;
  /**
   * The stage's `ThreatsFound` data points since a time (CloudWatch, with the operator's AWS
   * credentials): given, the check also proves the infected file was counted, which is what
   * the alarm watches.
   */
  readonly threatsCountedSince?: (since: Date) => Promise<number>;
  /**
   * How long the count may take to show: metrics reach CloudWatch minutes after the verdict.
   *
   * @default 5 minutes
   */
  readonly metricsWaitMs?: number;
  /**
   * The size of the direct upload.
   *
   * @default 3 MiB
   */
  readonly directUploadBytes?: number;
  /**
   * How long one request may take.
   *
   * @default 15 s
   */
  readonly requestTimeoutMs?: number;
}

type StepStatus = 'ok' | 'failed' | 'skipped';

export interface StepResult {
  readonly step: string;
  readonly status: StepStatus;
  readonly ms: number;
  /** What was seen, for a failed or skipped step; a short note for a passed one. */
  readonly detail: string;
}

/** A step's failure, in words an operator can act on. */
class CheckFailed extends Error {}

const UserFileBody = z.object({ id: z.number(), filesize: z.number() });
const UsageAmount = z.object({ used: z.number(), reserved: z.number(), allowed: z.number() });
const UsageBody = z.object({ files: UsageAmount, bytes: UsageAmount });
const TicketBody = z.object({
  id: z.number(),
  url: z.string(),
  fields: z.record(z.string(), z.string()),
});
const TokenBody = z.object({ token: z.string() });
const AcceptedBody = z.object({ notification_id: z.string(), status: z.string() });
const DetailBody = z.object({ detail: z.string() });
const NotificationBody = z.object({ status: z.string() });

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const base64Sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('base64');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The anti-malware test file's 68 bytes (eicar.org), which every scanner reports as a threat
 * and which harms nothing. Split so that no scanner flags this source file.
 */
const EICAR = Buffer.from(
  ['X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR', '-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*'].join(''),
  'latin1',
);

/** The wait between two looks at a held download: its Retry-After, within bounds. */
const retryAfterMs = (response: Response, maxMs: number): number => {
  const seconds = Number(response.headers.get('retry-after'));
  return Math.min(Math.max(Number.isFinite(seconds) ? seconds * 1000 : 1000, 250), maxMs);
};

export async function runSmokeCheck(options: SmokeOptions): Promise<StepResult[]> {
  const base = options.url.replace(/\/+$/, '');
  const timeoutMs = options.requestTimeoutMs ?? 15_000;
  const auth = { authorization: `Bearer ${options.token}` };
  const results: StepResult[] = [];
  const created: number[] = [];
  let uploaded: { id: number; bytes: Buffer } | undefined;
  let direct: { id: number; bytes: Buffer } | undefined;

  const call = async (path: string, init: RequestInit = {}): Promise<Response> => {
    try {
      return await fetch(path.startsWith('http') ? path : `${base}${path}`, {
        redirect: 'manual',
        ...init,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
      throw new CheckFailed(
        `${init.method ?? 'GET'} ${path}: ${cause instanceof Error ? cause.message : String(cause)}`,
      );
    }
  };
  const expectStatus = async (response: Response, status: number, what: string) => {
    if (response.status === status) return;
    const body = (await response.text()).slice(0, 200);
    throw new CheckFailed(
      `${what}: ${String(response.status)} ${body} (expected ${String(status)})`,
    );
  };
  const json = async <T>(response: Response, schema: z.ZodType<T>, what: string): Promise<T> => {
    const parsed = schema.safeParse(await response.json().catch(() => undefined));
    if (!parsed.success) throw new CheckFailed(`${what}: the body is not the documented shape`);
    return parsed.data;
  };
  const scanWaitMs = options.scanWaitMs ?? 300_000;
  /**
   * The download route's answer once the file's scan is over: while it says 409 with a
   * Retry-After (the scan under way) it is asked again when that says, for at most the scan
   * wait. A 409 without one is a file held for an operator, not a scan to wait for.
   */
  const settledDownload = async (
    id: number,
  ): Promise<{ response: Response; held: number; seconds: number }> => {
    const started = Date.now();
    const deadline = started + scanWaitMs;
    const seconds = () => Math.round((Date.now() - started) / 1000);
    for (let held = 0; ; held += 1) {
      const response = await call(`/api/v1/user/me/file/${String(id)}/download`, {
        headers: auth,
      });
      if (response.status !== 409) return { response, held, seconds: seconds() };
      const wait = retryAfterMs(response, options.retryAfterMaxMs ?? 10_000);
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
  };
  /** The bytes a file's download link serves (the link is followed without the API token). */
  const download = async (
    id: number,
  ): Promise<{ bytes: Buffer; held: string; digest: string | null }> => {
    const { response: link, held, seconds } = await settledDownload(id);
    const location = link.headers.get('location');
    if (link.status < 300 || link.status > 399 || location === null) {
      await expectStatus(link, 302, 'download');
      throw new CheckFailed('download: a redirect without a Location');
    }
    const file = await call(location);
    await expectStatus(file, 200, 'the download link');
    return {
      bytes: Buffer.from(await file.arrayBuffer()),
      held: held === 0 ? '' : `, held (409) ${String(held)}× over ${String(seconds)} s first`,
      digest: link.headers.get(FILE_DIGEST_HEADER),
    };
  };

  /** A direct upload of these bytes, signed with their SHA-256 (a later delete takes it). */
  const startDirectUpload = async (name: string, size: number, sha256: string) => {
    const started = await call('/api/v1/user/me/file/upload', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      // The digest is signed into the form: S3 takes only bytes with it.
      body: JSON.stringify({ name, type: 'raw_data', filesize: size, sha256 }),
    });
    await expectStatus(started, 201, 'start a direct upload');
    const ticket = await json(started, TicketBody, 'start a direct upload');
    created.push(ticket.id);
    return ticket;
  };

  /** The signed form, posted as a browser posts it: its fields, then the bytes. */
  const postSignedForm = (ticket: z.infer<typeof TicketBody>, bytes: Buffer, name: string) => {
    const form = new FormData();
    for (const [field, value] of Object.entries(ticket.fields)) form.set(field, value);
    form.set('file', new Blob([bytes]), name);
    return call(ticket.url, { method: 'POST', body: form });
  };

  /** The complete call's answer, once the S3 event's finalizer no longer holds it (409). */
  const completed = async (id: number): Promise<Response> => {
    const complete = `/api/v1/user/me/file/upload/${String(id)}/complete`;
    for (const wait of [250, 500, 1000, 2000, 4000]) {
      const response = await call(complete, { method: 'POST', headers: auth });
      if (response.status !== 409) return response;
      await sleep(wait);
    }
    const response = await call(complete, { method: 'POST', headers: auth });
    if (response.status === 409) throw new CheckFailed('complete: still in progress');
    return response;
  };

  const step = async (
    name: string,
    run: () => Promise<string>,
    needs: readonly unknown[] = [],
  ): Promise<void> => {
    if (needs.some((value) => value === undefined)) {
      results.push({ step: name, status: 'skipped', ms: 0, detail: 'an earlier step failed' });
      return;
    }
    const started = performance.now();
    try {
      const detail = await run();
      results.push({ step: name, status: 'ok', ms: performance.now() - started, detail });
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      results.push({ step: name, status: 'failed', ms: performance.now() - started, detail });
    }
  };

  /** The step after an upload: its download serves the bytes sent (skipped when none were). */
  const compareDownload = (sent: { id: number; bytes: Buffer } | undefined) =>
    step(
      'download it, compare',
      async () => {
        if (sent === undefined) throw new CheckFailed('nothing was uploaded');
        const got = await download(sent.id);
        if (sha256(got.bytes) !== sha256(sent.bytes)) throw new CheckFailed('the download differs');
        // The digest the API tells is the bytes' own, as recorded when they were stored.
        if (got.digest !== base64Sha256(got.bytes)) {
          throw new CheckFailed(`the ${FILE_DIGEST_HEADER} header is ${String(got.digest)}`);
        }
        return `same bytes, same SHA-256${got.held}`;
      },
      [sent],
    );

  await step('GET /openapi.json', async () => {
    const response = await call('/openapi.json');
    await expectStatus(response, 200, 'openapi.json');
    const document = (await response.json().catch(() => undefined)) as
      { openapi?: unknown; paths?: Record<string, unknown> } | undefined;
    if (typeof document?.openapi !== 'string' || document.paths === undefined) {
      throw new CheckFailed('openapi.json: not an OpenAPI document');
    }
    return `OpenAPI ${document.openapi}, ${String(Object.keys(document.paths).length)} paths`;
  });

  await step('no token: 401', async () => {
    const response = await call('/api/v1/user/me/file');
    await expectStatus(response, 401, 'a request without a token');
    const body = await response.text();
    if (body !== '{"message":"Unauthorized"}') {
      throw new CheckFailed(
        `a request without a token: 401 ${body.slice(0, 200)}, not the authorizer's`,
      );
    }
    return "the authorizer's answer";
  });

  await step('list files', async () => {
    const response = await call('/api/v1/user/me/file', { headers: auth });
    await expectStatus(response, 200, 'list');
    const files = await json(response, z.array(z.unknown()), 'list');
    return `${String(files.length)} file(s)`;
  });

  await step('multipart upload', async () => {
    const bytes = randomBytes(64 * 1024);
    const form = new FormData();
    form.set('name', 'smoke-check.bin');
    form.set('type', 'raw_data');
    form.set('file', new Blob([bytes], { type: 'application/octet-stream' }), 'smoke-check.bin');
    const response = await call('/api/v1/user/me/file', {
      method: 'POST',
      headers: auth,
      body: form,
    });
    await expectStatus(response, 201, 'upload');
    const file = await json(response, UserFileBody, 'upload');
    created.push(file.id);
    if (file.filesize !== bytes.length) {
      throw new CheckFailed(
        `upload: recorded ${String(file.filesize)} bytes of ${String(bytes.length)}`,
      );
    }
    uploaded = { id: file.id, bytes };
    return `file ${String(file.id)}, ${String(bytes.length)} bytes`;
  });

  await compareDownload(uploaded);

  await step('direct upload, complete', async () => {
    const bytes = randomBytes(options.directUploadBytes ?? 3 * 1024 * 1024);
    const name = 'smoke-check-direct.bin';
    const ticket = await startDirectUpload(name, bytes.length, base64Sha256(bytes));
    const posted = await postSignedForm(ticket, bytes, name);
    if (posted.status < 200 || posted.status > 299) {
      throw new CheckFailed(
        `the signed form: ${String(posted.status)} ${(await posted.text()).slice(0, 200)}`,
      );
    }
    const response = await completed(ticket.id);
    await expectStatus(response, 201, 'complete');
    const file = await json(response, UserFileBody, 'complete');
    if (file.filesize !== bytes.length) {
      throw new CheckFailed(
        `complete: recorded ${String(file.filesize)} bytes of ${String(bytes.length)}`,
      );
    }
    direct = { id: file.id, bytes };
    return `file ${String(file.id)}, ${String(bytes.length)} bytes`;
  });

  await compareDownload(direct);

  await step('declared SHA-256, other bytes: refused', async () => {
    const declared = randomBytes(1024);
    const name = 'smoke-check-digest.bin';
    const ticket = await startDirectUpload(name, declared.length, base64Sha256(declared));
    const posted = await postSignedForm(ticket, randomBytes(declared.length), name);
    const answer = await posted.text();
    // S3 checks the form's signed checksum itself (400 BadDigest); a store that does not (the
    // local stand-in) takes the bytes, and the completion refuses them.
    if (posted.status === 400 && answer.includes('BadDigest')) return 'S3 refused them: BadDigest';
    if (posted.status < 200 || posted.status > 299) {
      throw new CheckFailed(`the signed form: ${String(posted.status)} ${answer.slice(0, 200)}`);
    }
    await expectStatus(await completed(ticket.id), 400, 'complete bytes of another digest');
    return 'the store took them; the completion refused them (400)';
  });

  await step('GET /api/v1/user/me/usage', async () => {
    const response = await call('/api/v1/user/me/usage', { headers: auth });
    await expectStatus(response, 200, 'usage');
    const usage = await json(response, UsageBody, 'usage');
    return `${String(usage.files.used)} of ${String(usage.files.allowed)} files, ${String(usage.bytes.used)} of ${String(usage.bytes.allowed)} bytes`;
  });

  let infectedAt: Date | undefined;
  if (options.malwareScanning) {
    await step('EICAR file: held, refused, deleted', async () => {
      // A minute early: CloudWatch keeps data points by the minute.
      const uploadedAt = new Date(Date.now() - 60_000);
      const form = new FormData();
      form.set('name', 'smoke-check-eicar.txt');
      form.set('type', 'raw_data');
      form.set('file', new Blob([EICAR], { type: 'text/plain' }), 'smoke-check-eicar.txt');
      const response = await call('/api/v1/user/me/file', {
        method: 'POST',
        headers: auth,
        body: form,
      });
      await expectStatus(response, 201, 'upload the EICAR test file');
      const { id } = await json(response, UserFileBody, 'upload the EICAR test file');
      created.push(id);
      const { response: refused, held, seconds } = await settledDownload(id);
      if (refused.status >= 300 && refused.status <= 399) {
        throw new CheckFailed(
          `the EICAR test file's download was not refused (${String(refused.status)}): does the stage scan (malwareScanning)?`,
        );
      }
      await expectStatus(refused, 403, "the EICAR test file's download");
      const { detail } = await json(refused, DetailBody, "the EICAR test file's download");
      // Its owner may still delete it.
      const deleted = await call(`/api/v1/user/me/file/${String(id)}`, {
        method: 'DELETE',
        headers: auth,
      });
      await expectStatus(deleted, 204, 'delete the EICAR test file');
      created.splice(created.indexOf(id), 1);
      const first =
        held === 0 ? '' : `held (409) ${String(held)}× over ${String(seconds)} s, then `;
      infectedAt = uploadedAt;
      return `file ${String(id)}: ${first}403 "${detail}"; deleted. Its ThreatsFound alarm should fire now`;
    });
  }
  const counted = options.threatsCountedSince;
  if (options.malwareScanning && counted !== undefined) {
    await step(
      'ThreatsFound counted',
      async () => {
        // Metrics reach CloudWatch a minute or two after the verdict: asked again until then.
        const waitMs = options.metricsWaitMs ?? 300_000;
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
  }

  const jwks = createRemoteJWKSet(new URL(`${base}/api/v1/auth/realtime-jwks.json`), {
    timeoutDuration: timeoutMs,
  });
  const realtimeToken = async (roomIds: string[]) => {
    const response = await call('/api/v1/auth/get-realtime-token', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ room_ids: roomIds }),
    });
    await expectStatus(response, 200, 'realtime token');
    const { token } = await json(response, TokenBody, 'realtime token');
    try {
      const { payload } = await jwtVerify(token, jwks);
      const rooms = payload.rooms;
      if (typeof rooms !== 'object' || rooms === null) throw new CheckFailed('no rooms claim');
      return Object.keys(rooms).sort();
    } catch (error) {
      if (error instanceof CheckFailed) throw error;
      throw new CheckFailed(
        `the token does not verify against the published JWKS: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  };

  await step('realtime token, no rooms', async () => {
    const rooms = await realtimeToken([]);
    if (rooms.length > 0) throw new CheckFailed(`the token opens ${rooms.join(', ')}`);
    return 'verified against the JWKS';
  });

  if (options.deal !== undefined) {
    const { groupId, dealId } = options.deal;
    const roomId = `${options.stage}:v1:group:${String(groupId)}:deal:${String(dealId)}`;
    await step('realtime token, deal room', async () => {
      const rooms = await realtimeToken([roomId]);
      if (rooms.join() !== roomId)
        throw new CheckFailed(`the token opens ${rooms.join(', ') || 'no room'}`);
      return `${roomId}, verified`;
    });
  }

  if (options.notify) {
    await step(
      'notify, sent',
      async () => {
        const response = await call('/api/v1/user/me/file/notify', {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({
            file_ids: [(uploaded as { id: number }).id],
            message: 'Smoke check',
          }),
        });
        await expectStatus(response, 202, 'notify');
        const accepted = await json(response, AcceptedBody, 'notify');
        const path = `/api/v1/user/me/file/notify/${accepted.notification_id}`;
        const deadline = Date.now() + 60_000;
        let status = accepted.status;
        while (status !== 'sent' && Date.now() < deadline) {
          if (status === 'failed' || status === 'unconfirmed') break;
          await sleep(500);
          const polled = await call(path, { headers: auth });
          await expectStatus(polled, 200, 'notification status');
          status = (await json(polled, NotificationBody, 'notification status')).status;
        }
        if (status !== 'sent') throw new CheckFailed(`the notification is ${status}`);
        return `notification ${accepted.notification_id} sent`;
      },
      [uploaded],
    );
  }

  await step('clean up', async () => {
    const left: number[] = [];
    for (const id of created) {
      const response = await call(`/api/v1/user/me/file/${String(id)}`, {
        method: 'DELETE',
        headers: auth,
      }).catch(() => undefined);
      if (response?.status !== 204) left.push(id);
    }
    if (left.length > 0) throw new CheckFailed(`files left behind: ${left.join(', ')}`);
    return created.length === 0 ? 'nothing to delete' : `deleted ${created.join(', ')}`;
  });

  return results;
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
