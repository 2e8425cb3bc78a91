import { beforeEach, describe, expect, it, vi } from 'vitest';
import { toUserFileItem } from '#shared/storage/file-items.ts';
import type { FileType } from '#shared/domain/file-type.ts';
import { expectRefused } from '#test/support/expect-refused.ts';
import { multipartBody } from '#test/support/multipart.ts';
import { useTestStage } from '#test/support/test-stage.ts';
import { eventually } from '#test/support/eventually.ts';
import { waitLimit } from '#test/support/wait-limit.ts';
import { useWebhookReceiver } from '#test/support/webhook-receiver.ts';
import { NOT_FOUND, UNAUTHORIZED } from '#test/support/fastapi-bodies.ts';

const POST_TIMEOUT_MS = waitLimit(1_000);
const receiver = useWebhookReceiver();
// Retries 50 ms apart at first, posts that wait a second for an answer (the receiver answers at
// once unless told to be late), and a channel fast enough not to slow them (its pace and the
// notify allowance: notify-flood.test.ts).
const stage = useTestStage(() => ({
  chatWebhookUrl: receiver().url,
  settings: {
    CHAT_RETRY_BASE_SECONDS: 0.05,
    CHAT_TIMEOUT_SECONDS: POST_TIMEOUT_MS / 1000,
    CHAT_POSTS_PER_SECOND: 20,
  },
}));
beforeEach(() => {
  receiver().reset();
});

const NOTIFY = '/api/v1/user/me/file/notify';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const notify = (as: number | undefined, body: unknown, headers: Record<string, string> = {}) =>
  stage().request(NOTIFY, {
    method: 'POST',
    ...(as === undefined ? {} : { as }),
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

interface SeededFile {
  readonly id: number;
  readonly name: string;
  readonly type: FileType | null;
  readonly size: number;
}

async function seedFiles(userId: number, files: readonly SeededFile[]) {
  await stage().put(
    files.map((f) =>
      toUserFileItem({
        userId,
        id: f.id,
        name: f.name,
        type: f.type,
        filesize: f.size,
        createdAt: '2026-11-01T09:00:00.000Z',
        updatedAt: null,
        isArchived: false,
        location: null,
        // Scanned and found clean: the message notes held files (test/e2e/malware-scan.test.ts).
        scan: { status: 'scanned', result: 'NO_THREATS_FOUND', at: '2026-11-01T09:00:01.000Z' },
      }),
    ),
  );
}

const statusOf = async (as: number, id: string) => {
  const response = await stage().request(`${NOTIFY}/${id}`, { as });
  return (await response.json()) as { status: string };
};

/** Waits until the notification leaves `queued`/`sending`, and gives its status body. */
const settled = (as: number, id: string, timeoutMs = waitLimit(20_000)) =>
  eventually(async () => {
    const body = await statusOf(as, id);
    return ['queued', 'sending'].includes(body.status) ? undefined : body;
  }, timeoutMs);

const recordOf = async (id: string) =>
  (await stage().items()).find((item) => item.notification_id === id);

/** The queue has let go of every message: nothing more will be tried. */
const queueIdle = () =>
  eventually(() => stage().notifications.queue.messages().length === 0 || undefined);

const accepted = async (response: Response, fileCount: number) => {
  expect(response.status).toBe(202);
  const body = (await response.json()) as { notification_id: string };
  expect(body).toEqual({
    notification_id: expect.stringMatching(UUID) as string,
    status: 'queued',
    file_count: fileCount,
  });
  expect(response.headers.get('location')).toBe(`${NOTIFY}/${body.notification_id}`);
  return body.notification_id;
};

const FILES: readonly SeededFile[] = [
  { id: 11, name: 'Pitch deck.pdf', type: 'deck', size: 2_400_000 },
  { id: 12, name: 'Model <v2> & notes.xlsx', type: 'financials', size: 512_000 },
  { id: 13, name: 'raw.csv', type: null, size: 999 },
];

describe('POST /api/v1/user/me/file/notify: one chat message per call', () => {
  it('posts one message with who, the fund, each file and the note, then marks it sent', async () => {
    await seedFiles(901, FILES);
    const id = await accepted(
      await notify(901, {
        file_ids: [11, 12, 11, 13],
        fund_name: 'Acme Fund I',
        message: 'Q3 numbers <!channel> & deck',
      }),
      3,
    );
    expect(await settled(901, id)).toEqual({
      notification_id: id,
      status: 'sent',
      file_count: 3,
      file_ids: [11, 12, 13],
      fund_name: 'Acme Fund I',
      message: 'Q3 numbers <!channel> & deck',
      created_at: expect.any(String) as string,
      updated_at: expect.any(String) as string,
      sent_at: expect.any(String) as string,
    });
    await queueIdle();
    expect(receiver().posts).toHaveLength(1);
    expect(receiver().posts[0]?.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(receiver().posts[0]?.payload).toEqual({
      text: 'User 901 submitted 3 files for Acme Fund I',
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: 'New submission', emoji: false } },
        {
          type: 'section',
          fields: [
            { type: 'mrkdwn', text: '*From*\nUser 901', verbatim: true },
            { type: 'mrkdwn', text: '*Fund*\nAcme Fund I', verbatim: true },
            { type: 'mrkdwn', text: '*Files*\n3 files, 2.9 MB', verbatim: true },
          ],
        },
        {
          type: 'section',
          text: { type: 'plain_text', text: 'Q3 numbers <!channel> & deck', emoji: false },
        },
        { type: 'divider' },
        {
          type: 'section',
          text: {
            type: 'mrkdwn',
            text:
              '• *Pitch deck.pdf*  ·  Deck  ·  2.4 MB\n' +
              '• *Model &lt;v2&gt; &amp; notes.xlsx*  ·  Financials  ·  512.0 kB\n' +
              '• *raw.csv*  ·  No type  ·  999 bytes',
            verbatim: true,
          },
        },
      ],
    });
    expect(await recordOf(id)).toMatchObject({
      PK: 'USER#901',
      SK: `NOTIFICATION#${id}`,
      status: 'sent',
      attempts: 1,
      last_error: null,
    });
    expect(stage().notifications.deadLetters.messages()).toHaveLength(0);
  });

  it('covers files the caller uploaded through the API; no fund and no note are left out', async () => {
    const form = multipartBody([
      { name: 'file', value: Buffer.from('a,b\n1,2\n'), filename: 'q3.csv' },
      { name: 'name', value: 'q3.csv' },
      { name: 'type', value: 'raw_data' },
    ]);
    const uploaded = (await (await stage().upload(902, form)).json()) as { id: number };
    // Once its malware scan cleared it: a file still being scanned is noted as held.
    expect((await stage().download(902, uploaded.id)).status).toBe(302);
    const id = await accepted(await notify(902, { file_ids: [uploaded.id], fund_name: null }), 1);
    expect((await settled(902, id)).status).toBe('sent');
    expect(receiver().delivered()).toHaveLength(1);
    expect(receiver().posts[0]?.payload).toEqual({
      text: 'User 902 submitted 1 file',
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: 'New submission', emoji: false } },
        {
          type: 'section',
          fields: [
            { type: 'mrkdwn', text: '*From*\nUser 902', verbatim: true },
            { type: 'mrkdwn', text: '*Fund*\n_not given_', verbatim: true },
            { type: 'mrkdwn', text: '*Files*\n1 file, 8 bytes', verbatim: true },
          ],
        },
        { type: 'divider' },
        {
          type: 'section',
          text: { type: 'mrkdwn', text: '• *q3.csv*  ·  Raw data  ·  8 bytes', verbatim: true },
        },
      ],
    });
  });

  it('sums up a long list: 100 files, the first 20 named, the rest counted by type', async () => {
    const many = Array.from({ length: 100 }, (_, i): SeededFile => ({
      id: 1000 + i,
      name: `file-${i}.pdf`,
      type: i % 2 === 0 ? 'deck' : 'financials',
      size: 1000,
    }));
    await seedFiles(903, many);
    const id = await accepted(await notify(903, { file_ids: many.map((f) => f.id) }), 100);
    expect((await settled(903, id)).status).toBe('sent');
    const { blocks } = receiver().posts[0]?.payload as { blocks: { type: string }[] };
    expect(blocks.length).toBeLessThanOrEqual(50);
    expect(blocks.at(-1)).toEqual({
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: '…and 80 more files: 40 Deck, 40 Financials (80.0 kB)',
          verbatim: true,
        },
      ],
    });
    const listed = JSON.stringify(blocks).match(/file-\d+\.pdf/g);
    expect(listed).toHaveLength(20);
  });
});

describe('delivery faults', () => {
  it('500 twice, then 200: exactly one message delivered, after three tries', async () => {
    await seedFiles(910, FILES);
    receiver().answer({ status: 500, body: 'internal_error' }, { status: 502 });
    const id = await accepted(await notify(910, { file_ids: [11] }), 1);
    expect((await settled(910, id)).status).toBe('sent');
    await queueIdle();
    expect(receiver().posts.map((p) => p.answeredWith)).toEqual([500, 502, 200]);
    expect(receiver().delivered()).toHaveLength(1);
    expect(await recordOf(id)).toMatchObject({ status: 'sent', attempts: 3, last_error: null });
    expect(stage().notifications.deadLetters.messages()).toHaveLength(0);
  });

  it("a 429's Retry-After is honoured before the next try", async () => {
    await seedFiles(911, FILES);
    receiver().answer({ status: 429, headers: { 'retry-after': '1' }, body: 'rate_limited' });
    const id = await accepted(await notify(911, { file_ids: [12] }), 1);
    expect((await settled(911, id)).status).toBe('sent');
    const [limited, next] = receiver().posts;
    expect(limited?.answeredWith).toBe(429);
    expect(next?.answeredWith).toBe(200);
    const waited = (next?.at ?? 0) - (limited?.at ?? 0);
    expect(waited).toBeGreaterThanOrEqual(1000);
    expect(waited).toBeLessThan(1000 + waitLimit(1500));
    expect(receiver().delivered()).toHaveLength(1);
  });

  it('a post that gets no answer in time is tried again', async () => {
    await seedFiles(912, FILES);
    receiver().answer({ status: 200, body: 'ok', delayMs: POST_TIMEOUT_MS + waitLimit(60_000) });
    const id = await accepted(await notify(912, { file_ids: [13] }), 1);
    expect((await settled(912, id)).status).toBe('sent');
    await eventually(
      () => receiver().posts.every((p) => p.answeredWith !== undefined) || undefined,
    );
    expect(receiver().posts.map((p) => p.answeredWith)).toEqual(['abandoned', 200]);
    expect(receiver().delivered()).toHaveLength(1);
  });

  it('a webhook down for every try: marked failed after 5, set aside in the DLQ, never sent twice', async () => {
    await seedFiles(913, FILES);
    receiver().answerAlways({ status: 503, body: 'service_unavailable' });
    const id = await accepted(await notify(913, { file_ids: [11, 12] }), 2);
    expect((await settled(913, id)).status).toBe('failed');
    await queueIdle();
    expect(receiver().posts.map((p) => p.answeredWith)).toEqual([503, 503, 503, 503, 503]);
    expect(await recordOf(id)).toMatchObject({
      status: 'failed',
      attempts: 5,
      last_error: 'HTTP 503: service_unavailable',
    });
    const [aside] = stage().notifications.deadLetters.messages();
    expect(JSON.parse(aside?.body ?? '')).toEqual({ user_id: 913, notification_id: id });
    expect(stage().notifications.deadLetters.messages()).toHaveLength(1);

    // The operator fixes the webhook and redrives the DLQ: one message, and only one.
    receiver().reset();
    await stage().notifications.queue.send(aside?.body ?? '');
    await eventually(async () => ((await statusOf(913, id)).status === 'sent' ? true : undefined));
    await queueIdle();
    await stage().notifications.queue.send(aside?.body ?? '');
    await queueIdle();
    expect(receiver().posts).toHaveLength(1);
    expect(receiver().delivered()).toHaveLength(1);
  });

  it('a refusal no retry will change (404 channel_not_found): failed after one try', async () => {
    await seedFiles(914, FILES);
    receiver().answerAlways({ status: 404, body: 'channel_not_found' });
    const id = await accepted(await notify(914, { file_ids: [11] }), 1);
    expect((await settled(914, id)).status).toBe('failed');
    await queueIdle();
    expect(receiver().posts).toHaveLength(1);
    expect(await recordOf(id)).toMatchObject({
      status: 'failed',
      attempts: 1,
      last_error: 'HTTP 404: channel_not_found',
    });
    expect(
      stage()
        .notifications.deadLetters.messages()
        .some((m) => m.body.includes(id)),
    ).toBe(true);
  });

  it('the same message delivered again after it was sent posts nothing', async () => {
    await seedFiles(915, FILES);
    const id = await accepted(await notify(915, { file_ids: [11] }), 1);
    expect((await settled(915, id)).status).toBe('sent');
    await queueIdle();
    const body = JSON.stringify({ user_id: 915, notification_id: id });
    await Promise.all([
      stage().notifications.queue.send(body),
      stage().notifications.queue.send(body),
    ]);
    await queueIdle();
    expect(receiver().posts).toHaveLength(1);
  });
});

describe('Idempotency-Key', () => {
  it('a retry with the same key gets the same 202 and sends nothing new', async () => {
    await seedFiles(920, FILES);
    const body = { file_ids: [11, 12], fund_name: 'Fund II' };
    const first = await notify(920, body, { 'idempotency-key': 'submit-920-a' });
    const id = await accepted(first, 2);
    expect((await settled(920, id)).status).toBe('sent');
    const again = await notify(920, body, { 'idempotency-key': 'submit-920-a' });
    expect(await accepted(again, 2)).toBe(id);
    await queueIdle();
    expect(receiver().posts).toHaveLength(1);
    const records = (await stage().items()).filter((i) => i.entity === 'SubmissionNotification');
    expect(records.filter((r) => r.user_id === 920)).toHaveLength(1);
  });

  it('the same key with another request is a 422, and nothing is sent', async () => {
    await seedFiles(921, FILES);
    const id = await accepted(
      await notify(921, { file_ids: [11] }, { 'idempotency-key': 'k-921' }),
      1,
    );
    await settled(921, id);
    await queueIdle();
    await expectRefused(
      stage(),
      () => notify(921, { file_ids: [12] }, { 'idempotency-key': 'k-921' }),
      422,
      {
        detail: [
          {
            type: 'idempotency_key_reused',
            loc: ['header', 'idempotency-key'],
            msg: 'This Idempotency-Key was already used for a different request',
            input: 'k-921',
          },
        ],
      },
    );
    expect(receiver().posts).toHaveLength(1);
  });
});

describe('refusals: nothing recorded, nothing queued, nothing sent', () => {
  const nothingQueued = () => {
    expect(stage().notifications.queue.messages()).toHaveLength(0);
    expect(receiver().posts).toHaveLength(0);
  };

  it("another user's file or a missing one → 404 naming the ids", async () => {
    await seedFiles(930, [{ id: 31, name: 'mine.pdf', type: 'deck', size: 1 }]);
    await seedFiles(931, [{ id: 32, name: 'theirs.pdf', type: 'deck', size: 1 }]);
    await expectRefused(stage(), () => notify(930, { file_ids: [31, 32, 999_999] }), 404, {
      detail: 'Files not found: 32, 999999',
    });
    await expectRefused(stage(), () => notify(930, { file_ids: [32, 32] }), 404, {
      detail: 'File not found: 32',
    });
    nothingQueued();
  });

  it('an id of any length is an id: one beyond any we allocate is not found, named exactly', async () => {
    await seedFiles(933, [{ id: 33, name: 'mine.pdf', type: 'deck', size: 1 }]);
    await expectRefused(
      stage(),
      () =>
        notify(933, '{"file_ids": [33, 9223372036854775808, "123456789012345678901234567890"]}'),
      404,
      { detail: 'Files not found: 9223372036854775808, 123456789012345678901234567890' },
    );
    nothingQueued();
  });

  it('echoes numbers in a 422 as Python prints them: 1.0 stays 1.0, 1e20 is 1e+20', async () => {
    const before = await stage().stored();
    const response = await notify(
      933,
      '{"file_ids": 1.0, "fund_name": 1e20, "message": 9223372036854775808}',
    );
    expect(response.status).toBe(422);
    expect(await response.text()).toBe(
      '{"detail":[' +
        '{"type":"list_type","loc":["body","file_ids"],"msg":"Input should be a valid list","input":1.0},' +
        '{"type":"string_type","loc":["body","fund_name"],"msg":"Input should be a valid string","input":1e+20},' +
        '{"type":"string_type","loc":["body","message"],"msg":"Input should be a valid string","input":9223372036854775808}]}',
    );
    expect(await stage().stored()).toEqual(before);
    nothingQueued();
  });

  it("a lone surrogate in a text is Pydantic's string_unicode, never stored", async () => {
    await seedFiles(934, [{ id: 34, name: 'mine.pdf', type: 'deck', size: 1 }]);
    await expectRefused(
      stage(),
      () => notify(934, '{"file_ids": [34], "fund_name": "a\\ud800", "message": "ok"}'),
      422,
      {
        detail: [
          {
            type: 'string_unicode',
            loc: ['body', 'fund_name'],
            msg: 'Input should be a valid string, unable to parse raw data as a unicode string',
            input: 'a\ud800',
          },
        ],
      },
    );
    nothingQueued();
  });

  it('a queue that is down: 500 without internals, and no record left behind', async () => {
    await seedFiles(932, FILES);
    // A fault we cannot cause for real: the stage's queue refuses this one send.
    const send = vi
      .spyOn(stage().notifications.queue, 'send')
      .mockRejectedValueOnce(new Error('injected: send failed'));
    try {
      await expectRefused(stage(), () => notify(932, { file_ids: [11] }), 500, {
        detail: 'Internal Server Error',
      });
    } finally {
      send.mockRestore();
    }
    nothingQueued();
  });

  it('no token → 401', async () => {
    await expectRefused(stage(), () => notify(undefined, { file_ids: [1] }), 401, UNAUTHORIZED);
    nothingQueued();
  });

  const longFund = 'f'.repeat(201);
  const longMessage = '✓'.repeat(2001);
  const tooMany = Array.from({ length: 101 }, (_, i) => i + 1);
  it.each([
    ['no body', '', [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }]],
    [
      'broken JSON',
      '{"file_ids": [1,',
      [
        {
          type: 'json_invalid',
          loc: ['body', 16],
          msg: 'JSON decode error',
          input: {},
          ctx: { error: 'Expecting value' },
        },
      ],
    ],
    [
      'a list for a body',
      [1, 2],
      [
        {
          type: 'model_attributes_type',
          loc: ['body'],
          msg: 'Input should be a valid dictionary or object to extract fields from',
          input: [1, 2],
        },
      ],
    ],
    [
      'file_ids missing',
      { fund_name: 'F' },
      [
        {
          type: 'missing',
          loc: ['body', 'file_ids'],
          msg: 'Field required',
          input: { fund_name: 'F' },
        },
      ],
    ],
    [
      'file_ids not a list',
      { file_ids: 5 },
      [
        {
          type: 'list_type',
          loc: ['body', 'file_ids'],
          msg: 'Input should be a valid list',
          input: 5,
        },
      ],
    ],
    [
      'file_ids empty',
      { file_ids: [] },
      [
        {
          type: 'too_short',
          loc: ['body', 'file_ids'],
          msg: 'List should have at least 1 item after validation, not 0',
          input: [],
          ctx: { field_type: 'List', min_length: 1, actual_length: 0 },
        },
      ],
    ],
    [
      '101 file ids',
      { file_ids: tooMany },
      [
        {
          type: 'too_long',
          loc: ['body', 'file_ids'],
          msg: 'List should have at most 100 items after validation, not 101',
          input: tooMany,
          ctx: { field_type: 'List', max_length: 100, actual_length: 101 },
        },
      ],
    ],
    [
      'ids that are no integers, each at its index',
      { file_ids: [1, 'x', 2.5, null, true] },
      [
        {
          type: 'int_parsing',
          loc: ['body', 'file_ids', 1],
          msg: 'Input should be a valid integer, unable to parse string as an integer',
          input: 'x',
        },
        {
          type: 'int_from_float',
          loc: ['body', 'file_ids', 2],
          msg: 'Input should be a valid integer, got a number with a fractional part',
          input: 2.5,
        },
        {
          type: 'int_type',
          loc: ['body', 'file_ids', 3],
          msg: 'Input should be a valid integer',
          input: null,
        },
      ],
    ],
    [
      'fund_name over 200 characters',
      { file_ids: [1], fund_name: longFund },
      [
        {
          type: 'string_too_long',
          loc: ['body', 'fund_name'],
          msg: 'String should have at most 200 characters',
          input: longFund,
          ctx: { max_length: 200 },
        },
      ],
    ],
    [
      'message over 2,000 characters (counted as Python counts them)',
      { file_ids: [1], message: longMessage },
      [
        {
          type: 'string_too_long',
          loc: ['body', 'message'],
          msg: 'String should have at most 2000 characters',
          input: longMessage,
          ctx: { max_length: 2000 },
        },
      ],
    ],
    [
      'fund_name and message of the wrong type',
      { file_ids: [1], fund_name: 7, message: ['hi'] },
      [
        {
          type: 'string_type',
          loc: ['body', 'fund_name'],
          msg: 'Input should be a valid string',
          input: 7,
        },
        {
          type: 'string_type',
          loc: ['body', 'message'],
          msg: 'Input should be a valid string',
          input: ['hi'],
        },
      ],
    ],
  ])('%s → 422', async (_, body, errors) => {
    await expectRefused(stage(), () => notify(940, body), 422, { detail: errors });
    nothingQueued();
  });

  it('an Idempotency-Key over 255 characters → 422', async () => {
    await expectRefused(
      stage(),
      () => notify(941, { file_ids: [1] }, { 'idempotency-key': 'k'.repeat(256) }),
      422,
      {
        detail: [
          {
            type: 'string_too_long',
            loc: ['header', 'idempotency-key'],
            msg: 'String should have at most 255 characters',
            input: 'k'.repeat(256),
            ctx: { max_length: 255 },
          },
        ],
      },
    );
    nothingQueued();
  });

  it('an empty Idempotency-Key → 422', async () => {
    await expectRefused(
      stage(),
      () => notify(941, { file_ids: [1] }, { 'idempotency-key': '' }),
      422,
      {
        detail: [
          {
            type: 'string_too_short',
            loc: ['header', 'idempotency-key'],
            msg: 'String should have at least 1 character',
            input: '',
            ctx: { min_length: 1 },
          },
        ],
      },
    );
    nothingQueued();
  });
});

describe('GET /api/v1/user/me/file/notify/{notification_id} (extension)', () => {
  it("is the sender's alone: another user, an unknown id and a malformed one get 404", async () => {
    await seedFiles(950, FILES);
    const id = await accepted(await notify(950, { file_ids: [11] }), 1);
    await settled(950, id);
    for (const [as, path] of [
      [951, id],
      [950, '00000000-0000-4000-8000-000000000000'],
      [950, 'not-an-id'],
      [950, 'x'.repeat(2000)],
    ] as const) {
      const response = await stage().request(`${NOTIFY}/${path}`, { as });
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual(NOT_FOUND);
    }
  });
});
