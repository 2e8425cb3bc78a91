/**
 * Fail closed (issue 55 item 2): with the access trail's table gone (a real fault, the table
 * dropped under the running stage), no link, token or change is handed out or made. Every
 * route that would write an entry answers 503 with `Retry-After: 1`, and the operator's
 * commands refuse; a refused access is still answered as it was.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { trailTableNameOf } from '#infra/local/dynamodb/dynamodb-local.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#infra/local/stage/stand-ins.ts';
import { toMemberItem } from '#shared/groups/adapters/dynamo-group-repository.ts';
import { dealFile, seedDeals } from '#test/support/deal-fixtures.ts';
import { expectRefused } from '#test/support/expect-refused.ts';
import { NOT_FOUND, type UserFileBody } from '#test/support/fastapi-bodies.ts';
import { uploadForm } from '#test/support/multipart.ts';
import { useTestStage } from '#test/support/test-stage.ts';

const stage = useTestStage(() => ({ malwareScanning: false }));
const OWNER = 61;
const OUTSIDER = 63;
const UNAVAILABLE = { detail: 'Service Unavailable' };
const JSON_BODY = { 'content-type': 'application/json' };
const dealFilePath = '/api/v1/group/620/deal/1/file/6200';
let file: UserFileBody;

beforeAll(async () => {
  const uploaded = await stage().upload(OWNER, uploadForm('the deck', { name: 'deck.pdf' }));
  file = (await uploaded.json()) as UserFileBody;
  await seedDeals(stage(), {
    groups: [620],
    members: [{ groupId: 620, userId: OWNER, role: 'editor' }],
    deals: [{ groupId: 620, dealId: 1 }],
    files: [dealFile(620, 1, 6200)],
  });
  const dynamodb = new DynamoDBClient({
    endpoint: stage().dynamodbEndpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  try {
    await dynamodb.send(new DeleteTableCommand({ TableName: trailTableNameOf(stage().tableName) }));
  } finally {
    dynamodb.destroy();
  }
});

/** Sends the request; 503 with Retry-After: 1 and FastAPI's body, and nothing stored. */
async function unavailable(send: () => Promise<Response>) {
  let retryAfter: string | null = null;
  let location: string | null = null;
  await expectRefused(
    stage(),
    async () => {
      const response = await send();
      retryAfter = response.headers.get('retry-after');
      location = response.headers.get('location');
      return response;
    },
    503,
    UNAVAILABLE,
  );
  expect(retryAfter).toBe('1');
  expect(location).toBeNull();
}

describe('the access trail unavailable: nothing handed out, nothing changed', () => {
  it.each([
    ['a user file’s download link', () => `/api/v1/user/me/file/${String(file.id)}/download`],
    ['a deal file’s download link', () => `${dealFilePath}/download`],
  ])('gives no %s', async (_, path) => {
    await unavailable(() => stage().request(path(), { as: OWNER, redirect: 'manual' }));
  });

  it('gives no realtime token', async () => {
    await unavailable(() =>
      stage().request('/api/v1/auth/get-realtime-token', {
        method: 'POST',
        as: OWNER,
        headers: JSON_BODY,
        body: JSON.stringify({ room_ids: ['local:v1:group:620:deal:1'] }),
      }),
    );
  });

  it.each([
    [
      'renames',
      'PATCH',
      (): string => `/api/v1/user/me/file/${String(file.id)}`,
      { name: 'new.pdf' },
    ],
    [
      'archives',
      'PATCH',
      (): string => `/api/v1/user/me/file/${String(file.id)}`,
      { is_archived: true },
    ],
    ['deletes', 'DELETE', (): string => `/api/v1/user/me/file/${String(file.id)}`, undefined],
    ['changes a deal file’s type', 'PUT', (): string => dealFilePath, { type: 'financials' }],
    ['deletes a deal file', 'DELETE', (): string => dealFilePath, undefined],
  ] as const)('neither %s nor records it', async (_, method, path, body) => {
    await unavailable(() =>
      stage().request(path(), {
        method,
        as: OWNER,
        headers: JSON_BODY,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
  });

  it('still answers a refused access as it was, though its entry cannot be written', async () => {
    await expectRefused(
      stage(),
      () =>
        stage().request(dealFilePath, {
          method: 'PUT',
          as: OUTSIDER,
          headers: JSON_BODY,
          body: JSON.stringify({ type: 'deck' }),
        }),
      404,
      NOT_FOUND,
    );
  });

  it("refuses the operator's membership and deal-file changes, with nothing changed", async () => {
    const path = join(stage().dataDir, 'memo.pdf');
    await writeFile(path, 'a memo');
    const before = await stage().stored();
    const refused = (command: string) =>
      `admin: ${command}: the access trail could not be written (try again shortly); nothing was changed`;
    expect(
      await stage().admin(['member', 'add', '--group', '620', '--user', '64', '--role', 'viewer']),
    ).toEqual({ code: 1, out: '', err: refused('member add') });
    expect(
      await stage().admin(['member', 'remove', '--group', '620', '--user', String(OWNER)]),
    ).toEqual({
      code: 1,
      out: '',
      err: refused('member remove'),
    });
    expect(
      await stage().admin(['deal-file', 'add', '--group', '620', '--deal', '1', '--path', path]),
    ).toEqual({ code: 1, out: '', err: refused('deal-file add') });
    expect(await stage().stored()).toEqual(before);
  });

  it("stops an erasure at its marker when a membership's entry cannot be written", async () => {
    const erased = 65;
    await stage().put([toMemberItem({ groupId: 620, userId: erased, role: 'viewer' })]);
    const before = await stage().stored();
    expect(
      await stage().admin(['user', 'erase', '--user', String(erased), '--settle-seconds', '0']),
    ).toEqual({
      code: 1,
      out: '',
      err:
        'admin: user erase failed: the access trail could not be written (try again shortly); ' +
        'the user is marked erased and the erasure stopped there: run it again',
    });
    // The marker alone: the membership stays until a run whose entry can be written.
    const after = await stage().stored();
    const isMarker = (item: Record<string, unknown>) =>
      item.PK === `USER#${String(erased)}` && item.SK === 'ERASED';
    expect(after.items.filter(isMarker)).toHaveLength(1);
    expect({ ...after, items: after.items.filter((item) => !isMarker(item)) }).toEqual(before);
  });
});
