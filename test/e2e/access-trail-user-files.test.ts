/**
 * The access trail's entries for a user's own files (issue 55 item 2): each written by the
 * route that decides it, in the owner's trail, with exactly its fields.
 */
import { describe, expect, it } from 'vitest';
import { expectRefused } from '#test/support/expect-refused.ts';
import { NOT_FOUND, type UserFileBody } from '#test/support/fastapi-bodies.ts';
import { uploadForm } from '#test/support/multipart.ts';
import { useTestStage } from '#test/support/test-stage.ts';
import { entriesAddedBy, storedEntry } from '#test/support/trail-entries.ts';

const stage = useTestStage(() => ({ malwareScanning: false }));
const own = (id: number) => `/api/v1/user/me/file/${String(id)}`;

const patch = (as: number, id: number, body: unknown) =>
  stage().request(own(id), {
    method: 'PATCH',
    as,
    headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT },
    body: JSON.stringify(body),
  });
const USER_AGENT = 'trail-test/1.0 (e2e)';

async function upload(as: number, name: string): Promise<UserFileBody> {
  const response = await stage().upload(as, uploadForm(`bytes of ${name}`, { name }));
  expect(response.status).toBe(201);
  return (await response.json()) as UserFileBody;
}

/** What every entry of a request by `userId` carries about who asked. */
const requested = (userId: number, response: Response) => ({
  actor: 'user',
  user_id: userId,
  request_id: response.headers.get('apigw-requestid'),
  source_ip: '127.0.0.1',
  user_agent: USER_AGENT,
});

describe("the access trail of a user's own files", () => {
  it('records a download link, before the link, in the owner’s trail under the file', async () => {
    const file = await upload(71, 'deck.pdf');
    let response: Response | undefined;
    const added = await entriesAddedBy(stage(), async () => {
      response = await stage().download(71, file.id, { headers: { 'user-agent': USER_AGENT } });
    });
    expect(response?.status).toBe(302);
    expect(added).toHaveLength(1);
    const [entry] = added;
    expect(entry).toEqual(
      storedEntry(entry ?? {}, {
        scope: 'USER#71',
        file: `FILE#${String(file.id)}`,
        action: 'user_file.download',
        outcome: 'allowed',
        file_id: file.id,
        ...requested(71, response as Response),
      }),
    );
  });

  it('keeps the first 1,024 characters of a user agent of kilobytes', async () => {
    const file = await upload(74, 'long-agent.pdf');
    const agent = `agent/${'x'.repeat(8_000)}`;
    const added = await entriesAddedBy(stage(), async () => {
      const response = await stage().download(74, file.id, { headers: { 'user-agent': agent } });
      expect(response.status).toBe(302);
    });
    expect(added.map((entry) => entry.user_agent)).toEqual([agent.slice(0, 1024)]);
  });

  it('records nothing for a file that is not the caller’s, nor for one that is missing', async () => {
    const file = await upload(72, 'model.xlsx');
    const before = await stage().trailItems();
    await expectRefused(stage(), () => stage().download(73, file.id), 404, NOT_FOUND);
    await expectRefused(stage(), () => stage().download(72, 987_654), 404, NOT_FOUND);
    expect(await stage().trailItems()).toEqual(before);
  });

  it.each([
    ['a rename', { name: 'renamed.pdf' }, ['user_file.rename']],
    ['an archive', { is_archived: true }, ['user_file.archive']],
    [
      'both at once',
      { name: 'both.pdf', is_archived: true },
      ['user_file.rename', 'user_file.archive'],
    ],
  ] as const)('records %s with the change, in the owner’s trail', async (_, body, actions) => {
    const file = await upload(74, 'change.pdf');
    let response: Response | undefined;
    const added = await entriesAddedBy(stage(), async () => {
      response = await patch(74, file.id, body);
    });
    expect(response?.status).toBe(200);
    const answered = (await (response as Response).json()) as UserFileBody;
    expect(added.map((entry) => entry.action).sort()).toEqual([...actions].sort());
    for (const entry of added) {
      expect(entry).toEqual(
        storedEntry(entry, {
          scope: 'USER#74',
          file: `FILE#${String(file.id)}`,
          action: entry.action,
          outcome: 'allowed',
          file_id: file.id,
          ...requested(74, response as Response),
        }),
      );
      // Written with the change, at its time.
      expect(entry.at).toBe(answered.updated_at);
    }
  });

  it('records nothing for a PATCH that changes nothing', async () => {
    const file = await upload(75, 'same.pdf');
    expect((await patch(75, file.id, { is_archived: true })).status).toBe(200);
    const added = await entriesAddedBy(stage(), async () => {
      for (const body of [{ name: 'same.pdf' }, {}, { is_archived: true }]) {
        const response = await patch(75, file.id, body);
        expect(response.status).toBe(200);
        await response.body?.cancel();
      }
    });
    expect(added).toEqual([]);
  });

  it('records a file brought back from the archive, with the change', async () => {
    const file = await upload(78, 'back.pdf');
    expect((await patch(78, file.id, { is_archived: true })).status).toBe(200);
    let response: Response | undefined;
    const added = await entriesAddedBy(stage(), async () => {
      response = await patch(78, file.id, { is_archived: false });
    });
    expect(response?.status).toBe(200);
    const answered = (await (response as Response).json()) as UserFileBody;
    expect(answered.is_archived).toBe(false);
    expect(added).toEqual([
      storedEntry(added[0] ?? {}, {
        scope: 'USER#78',
        file: `FILE#${String(file.id)}`,
        action: 'user_file.unarchive',
        outcome: 'allowed',
        file_id: file.id,
        ...requested(78, response as Response),
      }),
    ]);
    expect(added[0]?.at).toBe(answered.updated_at);
  });

  it('records a delete with the delete, in the owner’s trail; another user’s attempt records nothing', async () => {
    const file = await upload(76, 'gone.pdf');
    const before = await stage().trailItems();
    await expectRefused(
      stage(),
      () => stage().request(own(file.id), { method: 'DELETE', as: 77 }),
      404,
      NOT_FOUND,
    );
    expect(await stage().trailItems()).toEqual(before);
    let response: Response | undefined;
    const added = await entriesAddedBy(stage(), async () => {
      response = await stage().request(own(file.id), {
        method: 'DELETE',
        as: 76,
        headers: { 'user-agent': USER_AGENT },
      });
    });
    expect(response?.status).toBe(204);
    expect(added).toEqual([
      storedEntry(added[0] ?? {}, {
        scope: 'USER#76',
        file: `FILE#${String(file.id)}`,
        action: 'user_file.delete',
        outcome: 'allowed',
        file_id: file.id,
        ...requested(76, response as Response),
      }),
    ]);
  });
});
