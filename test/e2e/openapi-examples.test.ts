import { randomUUID } from 'node:crypto';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import { toDealFileItem, toUserFileItem } from '#shared/storage/file-items.ts';
import {
  DEAL_FILE_EXAMPLE,
  EXAMPLE_BUCKET,
  EXAMPLE_BUCKET_URL,
  USER_FILE_EXAMPLE,
} from '#shared/api/examples.ts';
import { jsonBodyLimit } from '#shared/http/json-body-limit.ts';
import { MAX_UPLOAD_BYTES } from '#shared/user-files/upload-limits.ts';
import { dealFile, seedDeals } from '#test/support/deal-fixtures.ts';
import { EICAR_TEST_STRING } from '#infra/local/object-store/local-malware-scanner.ts';
import { eventually } from '#test/support/eventually.ts';
import {
  DYNAMODB_INTERNAL_ERROR,
  DYNAMODB_THROTTLED,
  type FaultAnswer,
  type FaultProxy,
  startFaultProxy,
} from '#test/support/fault-proxy.ts';
import { type HoldingProxy, startHoldingProxy } from '#test/support/holding-proxy.ts';
import { multipartBody, uploadForm } from '#test/support/multipart.ts';
import { postToSignedForm } from '#test/support/signed-form.ts';
import { useTestStage } from '#test/support/test-stage.ts';
import { API_OPERATIONS } from '#functions/service-functions.ts';

/**
 * Every example /openapi.json shows (and so /docs) is an answer the route really gives: each
 * one's situation is produced here on one local stage, and the example must equal the real
 * answer up to what varies between runs (`normalise`, below, says what).
 */

let dynamodb: { faults: FaultProxy; holds: HoldingProxy } | undefined;
let s3: { faults: FaultProxy; holds: HoldingProxy } | undefined;
const proxies = () => {
  if (dynamodb === undefined || s3 === undefined) throw new Error('The stage starts first');
  return { dynamodb, s3 };
};
/** Handler → faults → holds → emulator: a call can fail as AWS fails, or wait. */
const inFront = async (real: string) => {
  const holds = await startHoldingProxy(real);
  return { holds, faults: await startFaultProxy(holds.url) };
};

// Registered first, so it runs after the stage has closed (after-hooks run in reverse).
afterAll(async () => {
  await Promise.all(
    [dynamodb, s3].flatMap((p) => (p === undefined ? [] : [p.faults.close(), p.holds.close()])),
  );
});
const stage = useTestStage(() => ({
  // One notify a user, then one a minute: the allowance's 429 comes on a second call.
  settings: { NOTIFY_BURST: 1, NOTIFY_RATE_PER_MINUTE: 1 },
  handlerEndpoints: async (real) => {
    dynamodb = await inFront(real.dynamodb);
    s3 = await inFront(real.s3);
    return { dynamodb: dynamodb.faults.url, s3: s3.faults.url };
  },
}));

/** A real answer, and what was sent for it when a request example is checked against it. */
interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly mediaType: string | undefined;
  readonly body: unknown;
  readonly sent?: { readonly body?: unknown; readonly parameters?: Record<string, unknown> };
}

async function answerOf(response: Response, sent?: Answer['sent']): Promise<Answer> {
  const mediaType = response.headers.get('content-type')?.split(';')[0]?.trim();
  const bytes = Buffer.from(await response.arrayBuffer());
  const body =
    mediaType === 'application/json'
      ? (JSON.parse(bytes.toString('utf8')) as unknown)
      : mediaType?.startsWith('text/') === true
        ? bytes.toString('utf8')
        : undefined;
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    mediaType,
    body,
    ...(sent === undefined ? {} : { sent }),
  };
}

const json = (body: unknown): RequestInit => ({
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** A request as `as` (no token without one), and its answer. */
async function call(
  method: string,
  path: string,
  init: RequestInit & { as?: number; sent?: Answer['sent'] } = {},
): Promise<Answer> {
  const { sent, ...rest } = init;
  return answerOf(await stage().request(path, { method, redirect: 'manual', ...rest }), sent);
}

const requestExample = (key: keyof typeof API_OPERATIONS): unknown =>
  API_OPERATIONS[key].requestExample;

// The users each situation acts as: one a situation, so none sees another's files or allowance.
const OWNER = USER_FILE_EXAMPLE.user_id;
const USERS = {
  nobody: 20,
  deleter: 22,
  repeatUploader: 11,
  repeatNotifier: 12,
  failing: 14,
  throttled: 15,
  pager: 16,
  busyNotifier: 8,
  strangerNotifier: 9,
  viewer: 23,
  outsider: 24,
  emptyUpload: 25,
  earlyComplete: 26,
  bigUpload: 27,
  full: 28,
  counted: 31,
  infected: 29,
  scanning: 30,
  erased: 32,
} as const;

const GROUP = 1;
/** The deal of the example's deal file. */
const DEAL = 3;
const DEAL_FILE = 6;
/** A deal of the same group with more files than a page of 20 holds. */
const PAGED_DEAL = 4;
/** A group whose deal file's writes DynamoDB keeps refusing, as under concurrent edits. */
const CONTESTED_GROUP = 2;
const dealFilePath = (group: number, id = DEAL_FILE) =>
  `/api/v1/group/${String(group)}/deal/${String(DEAL)}/file/${String(id)}`;
const SEEDED_FILES = 21;

/** What DynamoDB answers a transaction whose conditions failed. */
const CONDITIONS_FAILED: FaultAnswer = {
  status: 400,
  contentType: 'application/x-amz-json-1.0',
  body: JSON.stringify({
    __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
    message:
      'Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed, ConditionalCheckFailed, ConditionalCheckFailed]',
    CancellationReasons: [1, 2, 3].map(() => ({
      Code: 'ConditionalCheckFailed',
      Message: 'The conditional request failed',
    })),
  }),
};

async function seed(): Promise<void> {
  const { created_at: createdAt, updated_at: updatedAt, name, type } = DEAL_FILE_EXAMPLE;
  const example = (group: number) =>
    dealFile(group, DEAL, DEAL_FILE, {
      name: name ?? '',
      type: type ?? null,
      createdAt: createdAt ?? '',
      updatedAt: updatedAt ?? null,
    });
  await seedDeals(stage(), {
    groups: [GROUP, CONTESTED_GROUP],
    members: [
      { groupId: GROUP, userId: OWNER, role: 'editor' },
      { groupId: GROUP, userId: USERS.viewer, role: 'viewer' },
      { groupId: CONTESTED_GROUP, userId: OWNER, role: 'editor' },
    ],
    deals: [
      { groupId: GROUP, dealId: DEAL },
      { groupId: GROUP, dealId: PAGED_DEAL },
      { groupId: CONTESTED_GROUP, dealId: DEAL },
    ],
    files: [example(GROUP), example(CONTESTED_GROUP)],
  });
  // Pages need more files than one page holds: records alone, as a listing reads them.
  const many = Array.from({ length: SEEDED_FILES }, (_, n) => n + 1000);
  await stage().put([
    ...many.map((fileId) =>
      toUserFileItem({
        ...dealFile(0, 0, fileId),
        userId: USERS.pager,
      }),
    ),
    ...many.map((fileId) => toDealFileItem(dealFile(GROUP, PAGED_DEAL, fileId))),
  ]);
}

/** The EICAR test file, uploaded, and its download once the scan found it: refused. */
async function infectedDownload(): Promise<Answer> {
  const as = USERS.infected;
  const uploaded = await stage().upload(
    as,
    uploadForm(Buffer.from(EICAR_TEST_STRING), { name: 'eicar.txt', type: 'raw_data' }),
  );
  const { id } = (await uploaded.json()) as { id: number };
  return eventually(async () => {
    const answer = await call('GET', `${fileAt(id)}/download`, { as });
    return answer.status === 409 ? undefined : answer;
  });
}

/** A file whose scan is under way, as the upload records it until its verdict comes. */
async function scanningDownload(): Promise<Answer> {
  const as = USERS.scanning;
  await stage().put([
    toUserFileItem({ ...dealFile(0, 0, 1), userId: as, scan: { status: 'pending' } }),
  ]);
  return call('GET', `${fileAt(1)}/download`, { as });
}

/** A user the operator erased, asking for a general token. */
async function erasedToken(): Promise<Answer> {
  const as = USERS.erased;
  const erased = await stage().admin([
    'user',
    'erase',
    '--user',
    String(as),
    '--settle-seconds',
    '0',
  ]);
  expect(erased.code).toBe(0);
  return call('POST', '/api/v1/auth/get-realtime-token', { as, ...json({ room_ids: [] }) });
}

const NOTIFY = '/api/v1/user/me/file/notify';
const UPLOADS = '/api/v1/user/me/file';
const START = '/api/v1/user/me/file/upload';
const complete = (id: number | string) => `${START}/${String(id)}/complete`;
const fileAt = (id: number | string) => `${UPLOADS}/${String(id)}`;

async function startUpload(as: number, body: unknown): Promise<Answer> {
  return call('POST', START, { as, ...json(body), sent: { body } });
}

const ticketOf = (answer: Answer) => {
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body as { id: number; key: string; url: string; fields: Record<string, string> };
};

/** A user with one file of the example's size, and a direct upload of the example's waiting. */
async function usageOfOne(): Promise<Answer> {
  const as = USERS.counted;
  const uploaded = await stage().upload(
    as,
    uploadForm(Buffer.alloc(USER_FILE_EXAMPLE.filesize, 1)),
  );
  expect(uploaded.status).toBe(201);
  expect((await startUpload(as, requestExample('POST /api/v1/user/me/file/upload'))).status).toBe(
    201,
  );
  return call('GET', '/api/v1/user/me/usage', { as });
}

/**
 * The example owner's day, in order: a multipart upload, read, listed (alone), archived,
 * downloaded; a direct upload signed and another completed; both announced, and the
 * announcement followed until sent.
 */
async function ownersDay(): Promise<Record<string, Answer>> {
  const { name, type, filesize } = USER_FILE_EXAMPLE;
  const uploaded = await stage().upload(
    OWNER,
    uploadForm(Buffer.alloc(filesize, 1), { name, type: type ?? '' }),
  );
  const upload = await answerOf(uploaded);
  const { id } = upload.body as { id: number };
  const parameters = { file_id: id };
  const got = await call('GET', fileAt(id), { as: OWNER, sent: { parameters } });
  const listed = await call('GET', UPLOADS, { as: OWNER });
  const changes = requestExample('PATCH /api/v1/user/me/file/{file_id}');
  const updated = await call('PATCH', fileAt(id), {
    as: OWNER,
    ...json(changes),
    sent: { body: changes, parameters },
  });
  // Once its malware scan has cleared it.
  const download = await eventually(async () => {
    const answer = await call('GET', `${fileAt(id)}/download`, { as: OWNER, sent: { parameters } });
    return answer.status === 409 ? undefined : answer;
  });
  const signed = await startUpload(OWNER, requestExample('POST /api/v1/user/me/file/upload'));
  const direct = ticketOf(await startUpload(OWNER, { name, type, filesize }));
  expect(await postToSignedForm(direct, Buffer.alloc(filesize, 2))).toBe(204);
  const completed = await call('POST', complete(direct.id), {
    as: OWNER,
    sent: { parameters: { file_id: direct.id } },
  });
  // The example's ids are the owner's two files, whatever ids this run gave them.
  const announcement = {
    ...(requestExample('POST /api/v1/user/me/file/notify') as object),
    file_ids: [id, direct.id],
  };
  const notified = await call('POST', NOTIFY, {
    as: OWNER,
    ...json(announcement),
    sent: { body: announcement },
  });
  const { notification_id: notification } = notified.body as { notification_id: string };
  const followed = await eventually(async () => {
    const answer = await call('GET', `${NOTIFY}/${notification}`, {
      as: OWNER,
      sent: { parameters: { notification_id: notification } },
    });
    return (answer.body as { status?: string }).status === 'sent' ? answer : undefined;
  });
  return {
    'POST /api/v1/user/me/file 201': upload,
    'GET /api/v1/user/me/file/{file_id} 200': got,
    'GET /api/v1/user/me/file 200': listed,
    'PATCH /api/v1/user/me/file/{file_id} 200': updated,
    'GET /api/v1/user/me/file/{file_id}/download 302': download,
    'POST /api/v1/user/me/file/upload 201': signed,
    'POST /api/v1/user/me/file/upload/{file_id}/complete 201': completed,
    'POST /api/v1/user/me/file/notify 202': notified,
    'GET /api/v1/user/me/file/notify/{notification_id} 200': followed,
    // Last: the announcement is sent, so the file may go.
    'DELETE /api/v1/user/me/file/{file_id} 204': await call('DELETE', fileAt(id), {
      as: OWNER,
      sent: { parameters },
    }),
  };
}

/** A body one byte over what any valid request of the route can be. */
const oversized = (key: keyof typeof API_OPERATIONS): RequestInit => {
  const { body } = API_OPERATIONS[key].request;
  if (body === undefined) throw new Error(`${key} takes no JSON body`);
  return {
    headers: { 'content-type': 'application/json' },
    body: ' '.repeat(jsonBodyLimit(body) + 1),
  };
};

/** The user's one notify of the minute, then the one over the allowance. */
async function overAllowance(): Promise<Answer> {
  const form = uploadForm('bytes');
  const { id } = (await (await stage().upload(USERS.busyNotifier, form)).json()) as { id: number };
  const body = { file_ids: [id] };
  expect((await call('POST', NOTIFY, { as: USERS.busyNotifier, ...json(body) })).status).toBe(202);
  return call('POST', NOTIFY, { as: USERS.busyNotifier, ...json(body) });
}

/** A direct upload whose object is put straight into the bucket, then completed until `status`. */
async function completedAs(as: number, bytes: Buffer, status: number): Promise<Answer> {
  const ticket = ticketOf(
    await startUpload(as, {
      name: 'landed.bin',
      type: 'other',
      filesize: Math.min(Math.max(bytes.length, 1), MAX_UPLOAD_BYTES),
    }),
  );
  await stage().s3.send(
    new PutObjectCommand({ Bucket: stage().bucket, Key: ticket.key, Body: bytes }),
  );
  return eventually(async () => {
    const answer = await call('POST', complete(ticket.id), { as });
    return answer.status === status ? answer : undefined;
  });
}

/** Calls whose DynamoDB request names this user fail as `fault`. */
const failingFor = (user: number, fault: FaultAnswer) => (body: string) =>
  body.includes(`"USER#${String(user)}"`) ? fault : undefined;

/** Every situation that can run beside the others. */
async function concurrentSituations(): Promise<Record<string, Answer>> {
  const { dynamodb: db } = proxies();
  const faults = [
    failingFor(USERS.failing, DYNAMODB_INTERNAL_ERROR),
    failingFor(USERS.throttled, DYNAMODB_THROTTLED),
  ];
  db.faults.setPlan((proxied) => {
    if (
      proxied.operation === 'TransactWriteItems' &&
      proxied.body.includes(`"GROUP#${String(CONTESTED_GROUP)}#`)
    ) {
      return CONDITIONS_FAILED;
    }
    for (const fault of faults) {
      const answer = fault(proxied.body);
      if (answer !== undefined) return answer;
    }
    return undefined;
  });
  const nobody = USERS.nobody;
  const asset = 'swagger-ui.css';
  // A user whose usage is at the files limit (10,000 files, as the stage allows), as if
  // they had uploaded them all.
  const full = stage().put([
    {
      PK: `USER#${String(USERS.full)}`,
      SK: 'USAGE',
      entity: 'Usage',
      held_files: 10_000,
      held_bytes: 10_000 * USER_FILE_EXAMPLE.filesize,
      reserved_files: 0,
      reserved_bytes: 0,
      version: 1,
      counted_at: new Date().toISOString(),
    },
  ]);
  const situations: Record<string, Promise<Answer | Record<string, Answer>>> = {
    owner: ownersDay(),
    // Documentation.
    'GET /docs 200': call('GET', '/docs'),
    'GET /docs/{asset} 200 text/css': call('GET', `/docs/${asset}`, {
      sent: { parameters: { asset } },
    }),
    'GET /docs/{asset} 200 text/javascript': call('GET', '/docs/swagger-ui-bundle.js'),
    'GET /docs/{asset} 404': call('GET', '/docs/swagger-ui.map'),
    'GET /api/v1/auth/realtime-jwks.json 200': call('GET', '/api/v1/auth/realtime-jwks.json'),
    // No route.
    NotFound: call('GET', '/api/v1/nothing'),
    MethodNotAllowed: call('POST', '/openapi.json'),
    // The shared refusals.
    Unauthorized: call('GET', UPLOADS),
    UnreadableJson: call('POST', NOTIFY, {
      as: nobody,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]),
    }),
    InternalServerError: call('GET', fileAt(1), { as: USERS.failing }),
    ServiceUnavailable: call('GET', fileAt(1), { as: USERS.throttled }),
    // User files.
    'GET /api/v1/user/me/file 200 header link': call('GET', `${UPLOADS}?limit=20`, {
      as: USERS.pager,
    }),
    'GET /api/v1/user/me/file 422': call('GET', `${UPLOADS}?limit=0`, { as: nobody }),
    'POST /api/v1/user/me/file 400': stage()
      .upload(nobody, {
        body: Buffer.from('--x junk\r\n\r\n--x--\r\n'),
        contentType: 'multipart/form-data; boundary=x',
      })
      .then((r) => answerOf(r)),
    'POST /api/v1/user/me/file 403': full.then(() =>
      stage()
        .upload(USERS.full, uploadForm('one file too many'))
        .then((r) => answerOf(r)),
    ),
    'POST /api/v1/user/me/file 413': stage()
      .upload(nobody, uploadForm(Buffer.alloc(5 * 1024 * 1024, 1)))
      .then((r) => answerOf(r)),
    'POST /api/v1/user/me/file 422': stage()
      .upload(
        nobody,
        multipartBody([
          { name: 'name', value: 'Q3 deck.pdf' },
          { name: 'type', value: 'deck' },
        ]),
      )
      .then((r) => answerOf(r)),
    'PATCH /api/v1/user/me/file/{file_id} 422': call('PATCH', fileAt(1), {
      as: nobody,
      ...json({ name: '' }),
    }),
    'GET /api/v1/user/me/file/{file_id}/download 403': infectedDownload(),
    'GET /api/v1/user/me/file/{file_id}/download 409': scanningDownload(),
    // Direct uploads.
    'POST /api/v1/user/me/file/upload 403': full.then(() =>
      startUpload(USERS.full, { name: 'late.bin', type: 'other', filesize: 5 }),
    ),
    'GET /api/v1/user/me/usage 200': usageOfOne(),
    'POST /api/v1/user/me/file/upload 422': startUpload(nobody, {
      name: 'model.xlsx',
      type: 'financials',
      filesize: MAX_UPLOAD_BYTES + 1,
    }),
    'POST /api/v1/user/me/file/upload/{file_id}/complete 400': completedAs(
      USERS.emptyUpload,
      Buffer.alloc(0),
      400,
    ),
    'POST /api/v1/user/me/file/upload/{file_id}/complete 409': startUpload(USERS.earlyComplete, {
      name: 'model.xlsx',
      type: 'financials',
      filesize: 10,
    }).then((started) => call('POST', complete(ticketOf(started).id), { as: USERS.earlyComplete })),
    'POST /api/v1/user/me/file/upload/{file_id}/complete 413': completedAs(
      USERS.bigUpload,
      Buffer.alloc(MAX_UPLOAD_BYTES + 1, 1),
      413,
    ),
    // Notifications.
    'POST /api/v1/user/me/file/notify 404': call('POST', NOTIFY, {
      as: USERS.strangerNotifier,
      ...json({ file_ids: [32, 999999] }),
    }),
    'POST /api/v1/user/me/file/notify 422': call('POST', NOTIFY, {
      as: nobody,
      ...json({ file_ids: [] }),
    }),
    'POST /api/v1/user/me/file/notify 429': overAllowance(),
    'GET /api/v1/user/me/file/notify/{notification_id} 404': call(
      'GET',
      `${NOTIFY}/${randomUUID()}`,
      { as: nobody },
    ),
    // Deal files.
    'GET /api/v1/group/{group_id}/deal/{deal_id}/file 200': call(
      'GET',
      `/api/v1/group/${String(GROUP)}/deal/${String(DEAL)}/file`,
      { as: USERS.viewer, sent: { parameters: { group_id: GROUP, deal_id: DEAL } } },
    ),
    'GET /api/v1/group/{group_id}/deal/{deal_id}/file 200 header link': call(
      'GET',
      `/api/v1/group/${String(GROUP)}/deal/${String(PAGED_DEAL)}/file?limit=20`,
      { as: USERS.viewer },
    ),
    'PUT /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id} 200': (() => {
      const body = requestExample('PUT /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id}');
      const parameters = { group_id: GROUP, deal_id: DEAL, file_id: DEAL_FILE };
      return call('PUT', dealFilePath(GROUP), {
        as: OWNER,
        ...json(body),
        sent: { body, parameters },
      });
    })(),
    'PUT /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id} 403': call(
      'PUT',
      dealFilePath(GROUP),
      { as: USERS.viewer, ...json({ type: 'deck' }) },
    ),
    'PUT /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id} 409': call(
      'PUT',
      dealFilePath(CONTESTED_GROUP),
      { as: OWNER, ...json({ type: 'deck' }) },
    ),
    'PUT /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id} 422': call(
      'PUT',
      dealFilePath(GROUP),
      { as: nobody, ...json({ type: 'memo' }) },
    ),
    'DELETE /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id} 403': call(
      'DELETE',
      dealFilePath(GROUP),
      { as: USERS.viewer },
    ),
    'DELETE /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id} 409': call(
      'DELETE',
      dealFilePath(CONTESTED_GROUP),
      { as: OWNER },
    ),
    // Realtime.
    'POST /api/v1/auth/get-realtime-token 200': (() => {
      const example = requestExample('POST /api/v1/auth/get-realtime-token') as {
        room_ids: string[];
      };
      // The example names a production room; this stage opens its own.
      const body = { room_ids: example.room_ids.map((room) => room.replace(/^[a-z]+:/, 'local:')) };
      return call('POST', '/api/v1/auth/get-realtime-token', {
        as: OWNER,
        ...json(body),
        sent: { body },
      });
    })(),
    'POST /api/v1/auth/get-realtime-token 403': erasedToken(),
    'POST /api/v1/auth/get-realtime-token 404': call('POST', '/api/v1/auth/get-realtime-token', {
      as: USERS.outsider,
      ...json({ room_ids: [`local:v1:group:${String(GROUP)}:deal:${String(DEAL)}`] }),
    }),
    'POST /api/v1/auth/get-realtime-token 422': call('POST', '/api/v1/auth/get-realtime-token', {
      as: nobody,
      ...json({}),
    }),
  };
  const settled = await Promise.all(
    Object.entries(situations).map(async ([key, answer]) => [key, await answer] as const),
  );
  return Object.fromEntries(
    settled.flatMap(([key, answer]) =>
      'status' in answer ? [[key, answer as Answer]] : Object.entries(answer),
    ),
  );
}

/** Until `count` calls wait at `proxy`, then the answer of `second`, then all released. */
async function whileHeld(
  proxy: HoldingProxy,
  which: Parameters<HoldingProxy['hold']>[0],
  first: () => Promise<Response>,
  second: () => Promise<Answer>,
): Promise<Answer> {
  proxy.hold(which);
  const held = first();
  try {
    await eventually(() => proxy.held() > 0 || undefined);
    return await second();
  } finally {
    proxy.release();
    await (await held).arrayBuffer();
  }
}

/** Situations that hold a dependency's answers: one at a time, after the others. */
async function heldSituations(): Promise<Record<string, Answer>> {
  const { dynamodb: db, s3: store } = proxies();
  const key = { 'idempotency-key': `key-${randomUUID()}` };
  const form = uploadForm('bytes');
  const repeatUpload = () => stage().upload(USERS.repeatUploader, form, key);
  const upload409 = await whileHeld(
    store.holds,
    (held) => held.path.includes(`/users/${String(USERS.repeatUploader)}/`),
    repeatUpload,
    async () => answerOf(await repeatUpload()),
  );
  const { id } = (await (await stage().upload(USERS.repeatNotifier, uploadForm('x'))).json()) as {
    id: number;
  };
  const notify = () =>
    stage().request(NOTIFY, {
      method: 'POST',
      as: USERS.repeatNotifier,
      ...json({ file_ids: [id] }),
      headers: { 'content-type': 'application/json', ...key },
    });
  const notify409 = await whileHeld(
    db.holds,
    (held) => held.operation === 'BatchGetItem',
    notify,
    async () => answerOf(await notify()),
  );
  const ticket = ticketOf(
    await startUpload(USERS.deleter, { name: 'held.bin', type: 'other', filesize: 4 }),
  );
  const delete409 = await whileHeld(
    store.holds,
    (held) => held.method === 'PUT' && held.path.includes(`/users/${String(USERS.deleter)}/`),
    async () => {
      expect(await postToSignedForm(ticket, Buffer.from('held'))).toBe(204);
      return stage().request(complete(ticket.id), { method: 'POST', as: USERS.deleter });
    },
    () => call('DELETE', fileAt(ticket.id), { as: USERS.deleter }),
  );
  // Last of all: every other situation needed the deal file.
  const dealFileDeleted = await call('DELETE', dealFilePath(GROUP), {
    as: OWNER,
    sent: { parameters: { group_id: GROUP, deal_id: DEAL, file_id: DEAL_FILE } },
  });
  return {
    'POST /api/v1/user/me/file 409': upload409,
    'POST /api/v1/user/me/file/notify 409': notify409,
    'DELETE /api/v1/user/me/file/{file_id} 409': delete409,
    'DELETE /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id} 204': dealFileDeleted,
  };
}

/**
 * The situations a route's usual answers need, read from its own declaration: so a new route
 * whose examples are of these kinds needs no line here. Each is made only where no situation
 * above gives the answer. With the parameters' examples (the seeded deal file is theirs):
 * - a GET's 200, as the owner of the examples' files;
 * - a 404 "Not Found", as a user in no group who owns nothing;
 * - a 413 of a JSON body, one byte over what any valid request of the route can be;
 * - a 422 `int_parsing` of a path id, with the example's input in that id.
 * They run after the concurrent situations (the PUT's 200 has then set the file's
 * `updated_at`, as the example shows) and before the held ones delete the deal file.
 */
async function derivedSituations(
  document: ServedDocument,
  given: Readonly<Record<string, Answer>>,
): Promise<Record<string, Answer>> {
  const derived: [string, Promise<Answer>][] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const route = `${method.toUpperCase()} ${path}`;
      const parameters = Object.fromEntries(
        (operation.parameters ?? []).map(({ name, example }) => [name, example]),
      );
      const at = (values: Readonly<Record<string, unknown>>) =>
        path.replace(/\{(\w+)\}/g, (_, name: string) => String(values[name]));
      const jsonRequest = operation.requestBody?.content['application/json'];
      const body = jsonRequest?.example;
      const sending = body === undefined ? {} : json(body);
      for (const [code, answer] of Object.entries(operation.responses)) {
        const key = `${route} ${code}`;
        const example = answer.content?.['application/json']?.example as
          { readonly detail?: unknown } | undefined;
        if (key in given || example === undefined) continue;
        const [error] = Array.isArray(example.detail)
          ? (example.detail as { type?: string; loc?: unknown[]; input?: unknown }[])
          : [];
        if (code === '200' && method === 'get' && body === undefined) {
          derived.push([key, call('GET', at(parameters), { as: OWNER, sent: { parameters } })]);
        } else if (code === '404' && example.detail === 'Not Found') {
          derived.push([
            key,
            call(method.toUpperCase(), at(parameters), { as: USERS.outsider, ...sending }),
          ]);
        } else if (code === '413' && jsonRequest !== undefined) {
          derived.push([
            key,
            call(method.toUpperCase(), at(parameters), {
              as: USERS.nobody,
              ...oversized(route as keyof typeof API_OPERATIONS),
            }),
          ]);
        } else if (code === '422' && error?.type === 'int_parsing' && error.loc?.[0] === 'path') {
          const wrong = { ...parameters, [String(error.loc[1])]: error.input };
          derived.push([
            key,
            call(method.toUpperCase(), at(wrong), { as: USERS.nobody, ...sending }),
          ]);
        }
      }
    }
  }
  return Object.fromEntries(
    await Promise.all(derived.map(async ([key, answer]) => [key, await answer] as const)),
  );
}

/** The parts of the served document that hold examples. */
interface MediaObject {
  readonly example?: unknown;
}
interface HeaderObject {
  readonly schema?: { readonly examples?: readonly unknown[] };
}
interface ResponseObject {
  readonly $ref?: string;
  readonly content?: Readonly<Record<string, MediaObject>>;
  readonly headers?: Readonly<Record<string, HeaderObject>>;
}
interface OperationObject {
  readonly parameters?: readonly { readonly name: string; readonly example?: unknown }[];
  readonly requestBody?: { readonly content: Readonly<Record<string, MediaObject>> };
  readonly responses: Readonly<Record<string, ResponseObject>>;
}
interface ServedDocument {
  readonly paths: Readonly<Record<string, Readonly<Record<string, OperationObject>>>>;
  readonly components: { readonly responses: Readonly<Record<string, ResponseObject>> };
}

/** One example the document shows, and the situation whose real answer it must equal. */
interface DocumentedExample {
  /** Where it is, for the failure message. */
  readonly where: string;
  readonly kind: 'response' | 'header' | 'request' | 'parameter';
  /** `<METHOD> <path> <status>`, or a shared answer's component name. */
  readonly situation: string;
  readonly status?: number;
  readonly mediaType?: string;
  readonly name?: string;
  readonly value: unknown;
}

/** The answers no route refers to: what a request that matches no route gets. */
const UNMATCHED_STATUS: Readonly<Record<string, number>> = {
  NotFound: 404,
  MethodNotAllowed: 405,
  TrailingSlashRedirect: 307,
};

function answerExamples(
  answer: ResponseObject,
  situation: string,
  status: number,
): DocumentedExample[] {
  return [
    ...Object.entries(answer.content ?? {}).flatMap(([mediaType, media]) =>
      media.example === undefined
        ? []
        : [
            {
              where: `${situation} ${mediaType}`,
              kind: 'response' as const,
              situation,
              status,
              mediaType,
              value: media.example,
            },
          ],
    ),
    ...Object.entries(answer.headers ?? {}).flatMap(([name, header]) =>
      (header.schema?.examples ?? []).map((value) => ({
        where: `${situation} header ${name}`,
        kind: 'header' as const,
        situation,
        status,
        name,
        value,
      })),
    ),
  ];
}

/** Every example in the document: parameters, request bodies, answers and their headers. */
function documentedExamples(document: ServedDocument): DocumentedExample[] {
  const found: DocumentedExample[] = [];
  const shared = new Map<string, number>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const route = `${method.toUpperCase()} ${path}`;
      for (const { name, example } of operation.parameters ?? []) {
        if (example !== undefined) {
          found.push({
            where: `${route} parameter ${name}`,
            kind: 'parameter',
            situation: route,
            name,
            value: example,
          });
        }
      }
      for (const [mediaType, media] of Object.entries(operation.requestBody?.content ?? {})) {
        if (media.example !== undefined) {
          found.push({
            where: `${route} request ${mediaType}`,
            kind: 'request',
            situation: route,
            mediaType,
            value: media.example,
          });
        }
      }
      for (const [code, answer] of Object.entries(operation.responses)) {
        const component = answer.$ref?.split('/').at(-1);
        if (component === undefined)
          found.push(...answerExamples(answer, `${route} ${code}`, Number(code)));
        else if (!shared.has(component)) shared.set(component, Number(code));
      }
    }
  }
  for (const [name, answer] of Object.entries(document.components.responses)) {
    const status = shared.get(name) ?? UNMATCHED_STATUS[name];
    if (status === undefined) throw new Error(`No route answers with ${name}`);
    found.push(...answerExamples(answer, name, status));
  }
  return found;
}

/**
 * Examples the local stage cannot give, each with where its real counterpart is checked. Every
 * other example must have its situation here.
 */
const PRODUCED_ELSEWHERE: Readonly<Record<string, string>> = {
  TooManyRequests:
    'API Gateway’s throttling answer, which the local stage does not emulate: "Clients may ' +
    'receive 429 Too Many Requests error responses" ' +
    '(https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-throttling.html)',
  'GET /api/v1/user/me/file 400':
    'over 100,000 files: test/hardening/big-accounts.test.ts gets this answer for real',
  'GET /api/v1/group/{group_id}/deal/{deal_id}/file 400':
    'the same answer as the user list’s (LIST_TOO_LARGE), produced by the same code',
};

/** What a real answer holds that differs from run to run, and the stage's own names. */
interface Varying {
  readonly bucket: string;
  /** Where this stage's bucket is reached, without a trailing slash. */
  readonly bucketUrl: string;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The one place that says what may differ between an example and its real answer: the ids
 * the run assigns (files, uploads, notifications), timestamps, signatures and signed tokens,
 * key material, paging cursors, the bucket's name and address, and a room's stage.
 * Everything else must be equal.
 */
const VARYING_STRINGS: readonly [RegExp, string][] = [
  [/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>'],
  [/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>'],
  [/(files\/|uploads\/\d+\/)\d+/g, '$1<id>'],
  [/cursor=[\w-]+/g, 'cursor=<cursor>'],
  [/(X-Amz-(?:Credential|Date|Signature)=)[^&]+/g, '$1<signed>'],
  [/^(production|development|local):v1:/, '<stage>:v1:'],
];
/** Fields whose whole value varies: signatures, tokens, key material. */
const VARYING_FIELDS = new Set([
  'Policy',
  'X-Amz-Signature',
  'X-Amz-Credential',
  'X-Amz-Date',
  'token',
  'kid',
  'x',
  'y',
]);
/** Fields that hold the ids of files or uploads. */
const ID_FIELDS = new Set(['id', 'file_ids', 'file_id']);

function normalise(value: unknown, varying: Varying, field?: string): unknown {
  if (typeof value === 'string') {
    if (field !== undefined && VARYING_FIELDS.has(field)) return '<varies>';
    if (value === varying.bucket || value === EXAMPLE_BUCKET) return '<bucket>';
    let text = value
      .replaceAll(varying.bucketUrl, '<bucket url>')
      .replaceAll(EXAMPLE_BUCKET_URL, '<bucket url>')
      .replaceAll(`s3://${varying.bucket}/`, 's3://<bucket>/')
      .replaceAll(`s3://${EXAMPLE_BUCKET}/`, 's3://<bucket>/');
    for (const [pattern, replacement] of VARYING_STRINGS) text = text.replace(pattern, replacement);
    // A virtual-hosted bucket's URL (deployed) ends in `/`, a path-style one (local) does not.
    return text === '<bucket url>/' ? '<bucket url>' : text;
  }
  if (typeof value === 'number' && field !== undefined && ID_FIELDS.has(field)) return '<id>';
  if (Array.isArray(value)) return value.map((item) => normalise(item, varying, field));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value)
        // Only a signer with a session (a deployed function's role) sends one.
        .filter(([key]) => key !== 'X-Amz-Security-Token')
        .map(([key, item]) => [key, normalise(item, varying, key)]),
    );
  }
  return value;
}

/** An example abbreviates text with `…`: the real text, where it fits, as the example says it. */
function abbreviated(real: unknown, example: unknown): unknown {
  if (typeof example === 'string' && typeof real === 'string' && example.includes('…')) {
    const pattern = example.split('…').map(escapeRegExp).join('[\\s\\S]*');
    if (new RegExp(`^${pattern}$`).test(real)) return example;
    return real.length > 200 ? `${real.slice(0, 200)}… (not as the example)` : real;
  }
  if (Array.isArray(real) && Array.isArray(example)) {
    return real.map((item, index) => abbreviated(item, example[index]));
  }
  if (
    typeof real === 'object' &&
    real !== null &&
    typeof example === 'object' &&
    example !== null
  ) {
    return Object.fromEntries(
      Object.entries(real).map(([key, item]) => [
        key,
        abbreviated(item, (example as Record<string, unknown>)[key]),
      ]),
    );
  }
  return real;
}

/** The real answer an example is held against, if this test produced it. */
function answerFor(
  answers: Readonly<Record<string, Answer>>,
  example: DocumentedExample,
): Answer | undefined {
  const { situation } = example;
  switch (example.kind) {
    case 'response':
      return answers[`${situation} ${example.mediaType ?? ''}`] ?? answers[situation];
    case 'header':
      return answers[`${situation} header ${example.name ?? ''}`] ?? answers[situation];
    case 'request':
      return Object.entries(answers).find(
        ([key, answer]) => key.startsWith(`${situation} 2`) && answer.sent?.body !== undefined,
      )?.[1];
    case 'parameter':
      return Object.entries(answers).find(
        ([key, answer]) =>
          new RegExp(`^${escapeRegExp(situation)} [23]`).test(key) &&
          answer.sent?.parameters?.[example.name ?? ''] !== undefined,
      )?.[1];
  }
}

function realValue(example: DocumentedExample, answer: Answer): unknown {
  switch (example.kind) {
    case 'response':
      expect.soft(answer.mediaType, example.where).toBe(example.mediaType);
      return answer.body;
    case 'header':
      return answer.headers[example.name ?? ''];
    case 'request':
      return answer.sent?.body;
    case 'parameter':
      return answer.sent?.parameters?.[example.name ?? ''];
  }
}

function compare(example: DocumentedExample, answer: Answer, varying: Varying): void {
  if (example.status !== undefined) expect.soft(answer.status, example.where).toBe(example.status);
  const field = example.kind === 'parameter' ? example.name : undefined;
  if (example.kind === 'header' && example.name === 'retry-after') {
    // Seconds until the allowance is back, counted from the call: a machine slow between the
    // call that spent it and the refused one gives fewer, never more, and never 0.
    const seconds = Number(realValue(example, answer));
    expect.soft(Number.isInteger(seconds) && seconds >= 1, example.where).toBe(true);
    expect.soft(seconds, example.where).toBeLessThanOrEqual(Number(example.value));
    return;
  }
  const expected = normalise(example.value, varying, field);
  const real = abbreviated(normalise(realValue(example, answer), varying, field), expected);
  expect.soft(real, example.where).toEqual(expected);
}

describe('the examples /docs shows', () => {
  it('are each an answer its route really gives', async () => {
    const document = (await (await stage().request('/openapi.json')).json()) as ServedDocument;
    await seed();
    const given = await concurrentSituations();
    const answers = {
      ...given,
      ...(await derivedSituations(document, given)),
      ...(await heldSituations()),
    };
    const examples = documentedExamples(document);
    const signed = answers['POST /api/v1/user/me/file/upload 201'];
    if (signed === undefined)
      throw new Error('The signed form is every other answer’s bucket address');
    const varying = { bucket: stage().bucket, bucketUrl: ticketOf(signed).url.replace(/\/$/, '') };
    const unchecked: string[] = [];
    const used = new Set<Answer>();
    for (const example of examples) {
      const answer = answerFor(answers, example);
      if (answer === undefined) {
        if (!(example.situation in PRODUCED_ELSEWHERE)) unchecked.push(example.where);
        continue;
      }
      used.add(answer);
      compare(example, answer, varying);
    }
    expect(unchecked, 'examples with no real answer here').toEqual([]);
    // A situation no example is held against is a misnamed one, or an example gone.
    const unused = Object.entries(answers).filter(([, answer]) => !used.has(answer));
    expect(unused.map(([key]) => key)).toEqual([]);
  });
});
