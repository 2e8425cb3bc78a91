import { execFile, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { toUserFileItem } from '#shared/storage/file-items.ts';
import { LIST_TOO_LARGE_DETAIL } from '#shared/http/list-too-large.ts';
import { MAX_UPLOAD_BYTES } from '#shared/user-files/upload-limits.ts';
import {
  API_GATEWAY_MAX_BODY_BYTES,
  LAMBDA_MAX_REQUEST_BYTES,
  LAMBDA_MAX_RESPONSE_BYTES,
  MULTIPART_UPLOAD_MAX_FILE_BYTES,
  refuseEvent,
  refuseRequestBody,
  refuseResult,
  resultBytes,
} from '#infra/local/gateway/platform-limits.ts';
import { OVERSIZE_DRAIN } from '#infra/local/gateway/request-body.ts';
import { expectRefused as refused } from '#test/support/expect-refused.ts';
import { uploadForm } from '#test/support/multipart.ts';
import { waitLimit } from '#test/support/wait-limit.ts';
import { useTestStage } from '#test/support/test-stage.ts';

const run = promisify(execFile);
/** Python 3 is on the machines this runs on; without it, its client's test cannot run. */
const python = spawnSync('python3', ['--version']).status === 0;

/**
 * Python's standard library client, as a script a developer would write: it sends the whole
 * body, then reads the answer, and prints what it read (or the error it got instead).
 */
const URLLIB_UPLOAD = `
import json, sys, urllib.error, urllib.request
url, token, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
request = urllib.request.Request(url, data=b"x" * size, method="POST", headers={
    "Authorization": "Bearer " + token,
    "Content-Type": "multipart/form-data; boundary=x",
})
try:
    with urllib.request.urlopen(request) as answer:
        print(json.dumps({"status": answer.status, "body": answer.read().decode()}))
except urllib.error.HTTPError as refused:
    print(json.dumps({"status": refused.code, "body": refused.read().decode()}))
except Exception as failed:
    print(json.dumps({"error": repr(failed)}))
`;

const stage = useTestStage();

const LIST = '/api/v1/user/me/file';
/** API Gateway's words for a body over its limit, and for an event over Lambda's. */
const TOO_LARGE = { message: 'Request Entity Too Large' };
/** An HTTP API's words for a Lambda integration that failed: here, a result over the limit. */
const INTERNAL = { message: 'Internal Server Error' };
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
/** The base64 length of `n` bytes, as the event carries a multipart body. */
const base64Length = (n: number) => Math.ceil(n / 3) * 4;

/** Refused with exactly this status and body, as API Gateway sends it, and nothing stored. */
async function expectPlatformRefusal(
  userId: number,
  send: () => Promise<Response>,
  status: number,
  body: unknown,
) {
  let requestId: string | null = null;
  await refused(
    stage(),
    async () => {
      const response = await send();
      requestId = response.headers.get('apigw-requestid');
      return response;
    },
    status,
    body,
  );
  expect(requestId).toMatch(/^[A-Za-z0-9+/]{14}=$/);
  const listed = await stage().request(LIST, { as: userId });
  expect(await listed.json()).toEqual([]);
  expect((await stage().objectKeys()).filter((key) => key.startsWith(`users/${userId}/`))).toEqual(
    [],
  );
}

describe('The local stage refuses what the platform refuses, as the platform does', () => {
  it('takes a multipart upload whose event is just under Lambda’s 6 MiB', async () => {
    // 16 KiB of room for the event's headers (the token among them) and its other fields.
    const formBytes = Math.floor(((LAMBDA_MAX_REQUEST_BYTES - 16 * 1024) / 4) * 3);
    const overhead = uploadForm('', { name: 'near.bin' }).body.length;
    const content = randomBytes(formBytes - overhead);
    const form = uploadForm(content, { name: 'near.bin' });
    expect(form.body.length).toBe(formBytes);
    const response = await stage().upload(80, form);
    expect(response.status).toBe(201);
    const created = (await response.json()) as { id: number; filesize: number };
    expect(created.filesize).toBe(content.length);
    const listed = (await (await stage().request(LIST, { as: 80 })).json()) as { id: number }[];
    expect(listed.map((file) => file.id)).toEqual([created.id]);
    const redirect = await stage().download(80, created.id);
    const object = await fetch(redirect.headers.get('location') ?? '');
    expect(sha256(new Uint8Array(await object.arrayBuffer()))).toBe(sha256(content));
  });

  it('refuses a 4.7 MB form whose base64 event is over 6 MiB: 413, the function never runs', async () => {
    const content = Buffer.alloc(Math.ceil((LAMBDA_MAX_REQUEST_BYTES / 4) * 3) + 1, 5);
    const form = uploadForm(content, { name: 'over.bin' });
    expect(form.body.length).toBeLessThan(API_GATEWAY_MAX_BODY_BYTES);
    expect(base64Length(form.body.length)).toBeGreaterThan(LAMBDA_MAX_REQUEST_BYTES);
    await expectPlatformRefusal(81, () => stage().upload(81, form), 413, TOO_LARGE);
  });

  it('refuses a body over 10 MiB with API Gateway’s 413', async () => {
    const overhead = uploadForm('', { name: 'big.bin' }).body.length;
    const form = uploadForm(Buffer.alloc(API_GATEWAY_MAX_BODY_BYTES + 1 - overhead, 6), {
      name: 'big.bin',
    });
    expect(form.body.length).toBe(API_GATEWAY_MAX_BODY_BYTES + 1);
    await expectPlatformRefusal(82, () => stage().upload(82, form), 413, TOO_LARGE);
  });

  it('refuses a body over 10 MiB sent without a length (chunked) the same way', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 7);
    const token = await stage().token(83);
    const send = () => {
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent > API_GATEWAY_MAX_BODY_BYTES) controller.close();
          else {
            sent += chunk.length;
            controller.enqueue(chunk);
          }
        },
      });
      return fetch(`${stage().url}${LIST}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'multipart/form-data; boundary=x',
        },
        body,
        duplex: 'half',
      });
    };
    await expectPlatformRefusal(83, send, 413, TOO_LARGE);
  });

  it(`refuses a ${MAX_UPLOAD_BYTES}-byte (50 MiB) multipart upload as deployed: the 10 MiB 413`, async () => {
    const form = uploadForm(randomBytes(MAX_UPLOAD_BYTES), { name: 'fifty.bin' });
    await expectPlatformRefusal(84, () => stage().upload(84, form), 413, TOO_LARGE);
  });

  it('lets fetch read the 413 of a 50 MB body sent whole: the gateway reads it first', async () => {
    const body = Buffer.alloc(50_000_000, 8);
    expect(body.length).toBeLessThanOrEqual(OVERSIZE_DRAIN.maxBytes);
    await expectPlatformRefusal(
      87,
      () =>
        stage().request(LIST, {
          method: 'POST',
          as: 87,
          headers: { 'content-type': 'application/octet-stream' },
          body,
        }),
      413,
      TOO_LARGE,
    );
    expect(stage().finishedRequests().at(-2)).toMatchObject({ method: 'POST', status: 413 });
  });

  it.skipIf(!python)(
    'lets Python’s urllib read the 413 of a 50 MB body, where it saw a broken pipe',
    async () => {
      const before = await stage().stored();
      const { stdout } = await run(
        'python3',
        ['-c', URLLIB_UPLOAD, `${stage().url}${LIST}`, await stage().token(88), '50000000'],
        { timeout: waitLimit(30_000) },
      );
      expect(JSON.parse(stdout)).toEqual({ status: 413, body: JSON.stringify(TOO_LARGE) });
      expect(await stage().stored()).toEqual(before);
    },
    waitLimit(60_000),
  );

  it('never answers a listing over Lambda’s response limit with the platform’s 500', async () => {
    // Each name's quotes are escaped twice, in the body and in the result around it: 1,000
    // characters are 4,000 bytes of result, so 2,000 files are some 8.6 MB of it. The
    // function measures its answer first, and refuses it in words a client can act on.
    const name = '"'.repeat(1000);
    await stage().put(
      Array.from({ length: 2000 }, (_, i) =>
        toUserFileItem({
          id: i + 1,
          userId: 85,
          name,
          type: 'other',
          createdAt: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
          updatedAt: null,
          isArchived: false,
          filesize: 1,
          location: `users/85/files/${i + 1}`,
        }),
      ),
    );
    const before = await stage().stored();
    const response = await stage().request(LIST, {
      as: 85,
      headers: { 'accept-encoding': 'identity' },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ detail: LIST_TOO_LARGE_DETAIL });
    expect(await stage().stored()).toEqual(before);
  });
});

describe('The multipart limit the docs state: files up to 4.7 MB (4,700,000 bytes)', () => {
  /** 3/4 of 6 MiB: no multipart upload of a larger file fits Lambda's event, whatever else. */
  const NO_FORM_ABOVE = (LAMBDA_MAX_REQUEST_BYTES / 4) * 3;

  it('takes a 4,700,000-byte file with 255-character names and 8 KB of other headers', async () => {
    const long = `${'n'.repeat(251)}.bin`;
    const form = uploadForm(Buffer.alloc(MULTIPART_UPLOAD_MAX_FILE_BYTES, 3), {
      name: long,
      filename: long,
    });
    const response = await stage().upload(90, form, { 'x-client-context': 'c'.repeat(8 * 1024) });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ name: long, filesize: 4_700_000 });
  });

  it('takes the largest file the event holds, and refuses one byte more as the platform does', async () => {
    // Probes with a type the function refuses (422, nothing stored) cost no storage; the
    // event's size, all that the platform judges, is that of the same upload with `deck`.
    // Every user id here has 4 digits: the token's claims are in the event too.
    let user = 9500;
    const probe = async (fileBytes: number) => {
      const form = uploadForm(Buffer.alloc(fileBytes, 4), { name: 'edge.bin', type: 'dekk' });
      const response = await stage().upload(user++, form);
      await response.arrayBuffer();
      return response.status;
    };
    const overhead = uploadForm('', { name: 'edge.bin', type: 'dekk' }).body.length;
    // The form's base64 alone fills the event past this; the request's other fields take well
    // under 8 KiB of it.
    let refused = NO_FORM_ABOVE - overhead + 1;
    let accepted = ((LAMBDA_MAX_REQUEST_BYTES - 8 * 1024) / 4) * 3 - overhead;
    expect([await probe(accepted), await probe(refused)]).toEqual([422, 413]);
    while (refused - accepted > 1) {
      const middle = Math.floor((accepted + refused) / 2);
      if ((await probe(middle)) === 422) accepted = middle;
      else refused = middle;
    }
    // Some 16 KB above the stated limit here; a deployed event is a little larger.
    expect(accepted).toBeGreaterThan(MULTIPART_UPLOAD_MAX_FILE_BYTES);
    expect(accepted).toBeLessThan(NO_FORM_ABOVE);
    const largest = uploadForm(Buffer.alloc(accepted, 4), { name: 'edge.bin' });
    const stored = await stage().upload(9601, largest);
    expect(stored.status).toBe(201);
    expect(await stored.json()).toMatchObject({ filesize: accepted });
    const over = uploadForm(Buffer.alloc(accepted + 1, 4), { name: 'edge.bin' });
    await expectPlatformRefusal(9602, () => stage().upload(9602, over), 413, TOO_LARGE);
  });
});

describe('The limits, exactly (platform-limits.ts)', () => {
  it('are 10 MiB of body, 6 MiB of event and 6 MiB + 100 bytes of result', () => {
    expect([
      API_GATEWAY_MAX_BODY_BYTES,
      LAMBDA_MAX_REQUEST_BYTES,
      LAMBDA_MAX_RESPONSE_BYTES,
    ]).toEqual([10_485_760, 6_291_456, 6_291_556]);
  });

  it('take a body, an event and a result at the limit, and refuse one byte more', () => {
    expect(refuseRequestBody(API_GATEWAY_MAX_BODY_BYTES)).toBeUndefined();
    expect(refuseRequestBody(API_GATEWAY_MAX_BODY_BYTES + 1)).toEqual({
      status: 413,
      body: TOO_LARGE,
      headers: { connection: 'close' },
    });
    expect(refuseEvent(LAMBDA_MAX_REQUEST_BYTES)).toBeUndefined();
    expect(refuseEvent(LAMBDA_MAX_REQUEST_BYTES + 1)).toEqual({
      status: 413,
      body: TOO_LARGE,
      headers: {},
    });
    expect(refuseResult(LAMBDA_MAX_RESPONSE_BYTES)).toBeUndefined();
    expect(refuseResult(LAMBDA_MAX_RESPONSE_BYTES + 1)).toEqual({
      status: 500,
      body: INTERNAL,
      headers: {},
    });
  });

  it('measure a result as the runtime sends it: its JSON, escapes and quotes included', () => {
    // A string of exactly the limit is over it once serialized (its two quotes).
    expect(resultBytes('A'.repeat(LAMBDA_MAX_RESPONSE_BYTES))).toBe(LAMBDA_MAX_RESPONSE_BYTES + 2);
    expect(resultBytes({ statusCode: 200, body: '"é"' })).toBe(
      Buffer.byteLength('{"statusCode":200,"body":"\\"é\\""}'),
    );
    expect(resultBytes(undefined)).toBe(4);
  });
});
