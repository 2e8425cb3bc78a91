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

  it('records nothing for a file that is not the caller’s, nor for one that is missing', async () => {
    const file = await upload(72, 'model.xlsx');
    const before = await stage().trailItems();
    await expectRefused(stage(), () => stage().download(73, file.id), 404, NOT_FOUND);
    await expectRefused(stage(), () => stage().download(72, 987_654), 404, NOT_FOUND);
    expect(await stage().trailItems()).toEqual(before);
  });
});
