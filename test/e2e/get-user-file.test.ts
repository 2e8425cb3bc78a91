/**
 * GET /api/v1/user/me/file/{file_id} (extension): the caller's file as the list shows it, or
 * FastAPI's 404 for anyone else's id or one that does not exist.
 */
import { describe, expect, it } from 'vitest';
import { expectRefused } from '#test/support/expect-refused.ts';
import { NOT_FOUND, type UserFileBody, validationBody } from '#test/support/fastapi-bodies.ts';
import { uploadForm } from '#test/support/multipart.ts';
import { useTestStage } from '#test/support/test-stage.ts';

const stage = useTestStage();
const own = (id: number | string) => `/api/v1/user/me/file/${String(id)}`;

async function upload(as: number, name: string): Promise<UserFileBody> {
  const response = await stage().upload(as, uploadForm(`bytes of ${name}`, { name }));
  expect(response.status).toBe(201);
  return (await response.json()) as UserFileBody;
}

describe('GET /api/v1/user/me/file/{file_id}', () => {
  it('answers the caller’s file exactly as the list shows it', async () => {
    const file = await upload(31, 'deck.pdf');
    const response = await stage().request(own(file.id), { as: 31 });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const listed = (await (
      await stage().request('/api/v1/user/me/file', { as: 31 })
    ).json()) as UserFileBody[];
    expect(await response.json()).toEqual(listed.find((f) => f.id === file.id));
  });

  it('another user’s file and a missing one are the same 404, and nothing changes', async () => {
    const file = await upload(32, 'model.xlsx');
    await expectRefused(stage(), () => stage().request(own(file.id), { as: 33 }), 404, NOT_FOUND);
    await expectRefused(stage(), () => stage().request(own(987_654), { as: 32 }), 404, NOT_FOUND);
  });

  it('an id that is no integer is FastAPI’s 422 int_parsing', async () => {
    await expectRefused(stage(), () => stage().request(own('notify'), { as: 32 }), 422, {
      ...validationBody({
        type: 'int_parsing',
        loc: ['path', 'file_id'],
        msg: 'Input should be a valid integer, unable to parse string as an integer',
        input: 'notify',
      }),
    });
  });

  it('without a token: the authorizer’s 401', async () => {
    const response = await fetch(`${stage().url}${own(1)}`);
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ message: 'Unauthorized' });
  });
});
