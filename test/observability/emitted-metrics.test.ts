import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { BUSINESS_METRICS } from '#shared/observability/business-metrics.ts';
import type { DirectUploadTicket } from '#test/support/fastapi-bodies.ts';
import { multipartBody } from '#test/support/multipart.ts';
import { waitLimit } from '#test/support/wait-limit.ts';
import { postToSignedForm } from '#test/support/signed-form.ts';
import { useTestStage } from '#test/support/test-stage.ts';
import { useWebhookReceiver } from '#test/support/webhook-receiver.ts';
import { EICAR_TEST_STRING } from '#infra/local/object-store/local-malware-scanner.ts';

/*
 * Runs in the `observability` project, where POWERTOOLS_METRICS_DISABLED is false: the
 * handlers print their EMF lines to stdout, as they do on Lambda, and this file reads them.
 */

interface EmfLine {
  readonly _aws: {
    readonly Timestamp: number;
    readonly CloudWatchMetrics: readonly {
      readonly Namespace: string;
      readonly Dimensions: readonly (readonly string[])[];
      readonly Metrics: readonly { readonly Name: string; readonly Unit: string }[];
    }[];
  };
  readonly [field: string]: unknown;
}

let lines: EmfLine[] = [];
const write = process.stdout.write.bind(process.stdout);

beforeAll(() => {
  // Powertools writes each EMF line in one call; those are kept here, the rest printed.
  process.stdout.write = (chunk: string | Uint8Array, ...rest: never[]) => {
    const text = String(chunk);
    if (!text.startsWith('{"_aws"')) return write(chunk, ...rest);
    lines.push(JSON.parse(text) as EmfLine);
    return true;
  };
});
afterAll(() => {
  process.stdout.write = write;
});

const receiver = useWebhookReceiver();
// One notify call a user, so a second one is throttled.
const stage = useTestStage(() => ({
  chatWebhookUrl: receiver().url,
  settings: { NOTIFY_BURST: 1, NOTIFY_RATE_PER_MINUTE: 1 },
}));
beforeEach(() => {
  lines = [];
});

/** Every data point of each metric in the lines read so far (a line may hold several). */
function points(): Record<string, number[]> {
  const found: Record<string, number[]> = {};
  for (const line of lines) {
    for (const directive of line._aws.CloudWatchMetrics) {
      for (const { Name } of directive.Metrics) {
        const value = line[Name];
        (found[Name] ??= []).push(...(Array.isArray(value) ? value : [value]).map(Number));
      }
    }
  }
  return found;
}

/** The directive of each line that holds `name`: namespace, dimensions and unit. */
function declared(name: string) {
  return lines.flatMap((line) =>
    line._aws.CloudWatchMetrics.flatMap((directive) =>
      directive.Metrics.filter((metric) => metric.Name === name).map((metric) => ({
        namespace: directive.Namespace,
        dimensions: directive.Dimensions,
        unit: metric.Unit,
        service: line.service,
      })),
    ),
  );
}

/** The malware scan's: its verdicts land whenever a scan ends, after any test's upload. */
const SCAN_METRICS = new Set(['FilesScanned', 'ThreatsFound', 'ScanFailures']);

/** The business metrics of the requests a test made: the scan's have a test of their own. */
const businessOnly = () =>
  Object.fromEntries(
    Object.entries(points()).filter(
      ([name]) => name in BUSINESS_METRICS && !SCAN_METRICS.has(name),
    ),
  );

/** The scan's metrics emitted so far. */
const scanOnly = () =>
  Object.fromEntries(Object.entries(points()).filter(([name]) => SCAN_METRICS.has(name)));

const upload = (as: number, content: Buffer, headers: Record<string, string> = {}) => {
  const form = multipartBody([
    { name: 'name', value: 'deck.pdf' },
    { name: 'type', value: 'deck' },
    { name: 'file', value: content, filename: 'deck.pdf', contentType: 'application/pdf' },
  ]);
  return stage().upload(as, form, headers);
};

describe('the metrics the handlers emit, as CloudWatch EMF lines', () => {
  it('one upload: a count and its bytes, in the stage namespace, by service only', async () => {
    const response = await upload(1, Buffer.alloc(1234, 1));
    expect(response.status).toBe(201);
    // The container's first invocation (one container here: the metrics are one per process).
    expect(declared('ColdStart')).toEqual([
      {
        namespace: 'FileService/test',
        dimensions: [['service', 'function_name']],
        unit: 'Count',
        service: 'file-service',
      },
    ]);
    expect(lines.find((line) => 'ColdStart' in line)?.function_name).toBe('UploadUserFile');
    expect(businessOnly()).toEqual({ MultipartUploads: [1], MultipartUploadBytes: [1234] });
    expect(declared('MultipartUploadBytes')).toEqual([
      {
        namespace: 'FileService/test',
        dimensions: [['service']],
        unit: 'Bytes',
        service: 'file-service',
      },
    ]);
  });

  it('one realtime token: the token and the rooms it opens', async () => {
    const response = await stage().request('/api/v1/auth/get-realtime-token', {
      method: 'POST',
      as: 2,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ room_ids: [] }),
    });
    expect(response.status).toBe(200);
    expect(businessOnly()).toEqual({ RealtimeTokensIssued: [1], RoomsPerToken: [0] });
    expect(declared('RealtimeTokensIssued')[0]?.unit).toBe('Count');
  });

  it('one notification: queued by the route, sent by the worker', async () => {
    const file = (await (await upload(3, Buffer.from('pdf'))).json()) as { id: number };
    lines = [];
    const response = await stage().request('/api/v1/user/me/file/notify', {
      method: 'POST',
      as: 3,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ file_ids: [file.id] }),
    });
    expect(response.status).toBe(202);
    await expect
      .poll(() => points().NotificationsSent, { timeout: waitLimit(20_000) })
      .toEqual([1]);
    expect(receiver().posts).toHaveLength(1);
    expect(businessOnly()).toEqual({ NotificationsQueued: [1], NotificationsSent: [1] });
  });

  it('a notify call over the allowance counts as throttled and as a 4xx, never as queued', async () => {
    const file = (await (await upload(7, Buffer.from('pdf'))).json()) as { id: number };
    const notify = () =>
      stage().request('/api/v1/user/me/file/notify', {
        method: 'POST',
        as: 7,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ file_ids: [file.id] }),
      });
    expect((await notify()).status).toBe(202);
    await expect
      .poll(() => points().NotificationsSent, { timeout: waitLimit(20_000) })
      .toEqual([1]);
    lines = [];
    expect((await notify()).status).toBe(429);
    expect(businessOnly()).toEqual({ NotificationsThrottled: [1], Refusals: [1] });
    expect(lines.find((line) => 'Refusals' in line)?.statusClass).toBe('4xx');
  });

  it('an idempotent replay counts as a replay, not as a second upload', async () => {
    const key = { 'idempotency-key': 'metrics-replay-1' };
    expect((await upload(4, Buffer.from('once'), key)).status).toBe(201);
    expect((await upload(4, Buffer.from('once'), key)).status).toBe(201);
    expect(businessOnly()).toEqual({
      MultipartUploads: [1],
      MultipartUploadBytes: [4],
      IdempotentReplays: [1],
    });
  });

  it('a direct upload counts once, whichever completer records it; a refused one once', async () => {
    /** Starts an upload and sends these bytes through its form; the S3 event follows. */
    const sent = async (
      as: number,
      content: Buffer,
      put: (ticket: DirectUploadTicket) => Promise<unknown> = async (ticket) => {
        expect(await postToSignedForm(ticket, content, 'model.xlsx')).toBe(204);
      },
    ): Promise<string> => {
      const started = await stage().request('/api/v1/user/me/file/upload', {
        method: 'POST',
        as,
        headers: { 'content-type': 'application/json' },
        // The form takes up to the declared size: the largest file this test sends.
        body: JSON.stringify({ name: 'model.xlsx', type: 'financials', filesize: 2048 }),
      });
      const ticket = (await started.json()) as DirectUploadTicket;
      await put(ticket);
      return `/api/v1/user/me/file/upload/${String(ticket.id)}/complete`;
    };
    // The S3 event's finalizer and the complete call race; one of them records it, and a
    // call that meets the other's claim is a 409 until it is done.
    const completed = (path: string) =>
      expect.poll(async () => (await stage().request(path, { method: 'POST', as: 6 })).status, {
        timeout: waitLimit(20_000),
      });
    await completed(await sent(6, Buffer.alloc(2048, 2))).toBe(201);
    // The form's policy refuses an empty file; one put there with the bucket's keys lands,
    // and completion refuses it.
    const putEmpty = (ticket: DirectUploadTicket) =>
      stage().s3.send(
        new PutObjectCommand({ Bucket: stage().bucket, Key: ticket.key, Body: Buffer.alloc(0) }),
      );
    await completed(await sent(6, Buffer.alloc(0), putEmpty)).toBe(400);
    // Refusals aside: a 409 met on the way would add one (refusals have a test of their own).
    const withoutRefusals = () => {
      const { Refusals: _refusals, ...rest } = businessOnly();
      return rest;
    };
    await expect.poll(withoutRefusals, { timeout: waitLimit(20_000) }).toEqual({
      DirectUploadsCompleted: [1],
      DirectUploadBytes: [2048],
      DirectUploadsRejected: [1],
    });
  });

  it('a verdict counts a scanned file; malware found counts a threat too', async () => {
    const eicar = Buffer.from(EICAR_TEST_STRING);
    const infected = (await (await upload(7, eicar)).json()) as { id: number };
    await expect
      .poll(async () => (await stage().download(7, infected.id)).status, {
        timeout: waitLimit(20_000),
      })
      .toBe(403);
    // The record changes before the function's metrics go out. Other tests' verdicts may
    // land meanwhile: only this file is infected.
    await expect.poll(() => scanOnly().ThreatsFound, { timeout: waitLimit(20_000) }).toEqual([1]);
    expect(scanOnly().FilesScanned?.length).toBeGreaterThanOrEqual(1);
    expect(declared('ThreatsFound')).toEqual([
      {
        namespace: 'FileService/test',
        dimensions: [['service']],
        unit: 'Count',
        service: 'file-service',
      },
    ]);
  });

  it('refusals by status class, on a line of their own', async () => {
    const response = await stage().request('/api/v1/user/me/file/999999/download', { as: 5 });
    expect(response.status).toBe(404);
    expect(businessOnly()).toEqual({ Refusals: [1] });
    expect(declared('Refusals')).toEqual([
      {
        namespace: 'FileService/test',
        dimensions: [['service', 'statusClass']],
        unit: 'Count',
        service: 'file-service',
      },
    ]);
    expect(lines.find((line) => 'Refusals' in line)?.statusClass).toBe('4xx');
  });
});
