/**
 * Issue 3's figure: 200 uploads at once get 200 distinct ids, 200 records and 200 objects.
 * Ids come in blocks of 50, so four refills race. `npm test` holds the same with 60
 * (test/e2e/upload-user-file.test.ts); this is the load's size.
 */
import { describe, expect, it } from 'vitest';
import { uploadForm } from '#test/support/multipart.ts';
import { useTestStage } from '#test/support/test-stage.ts';

const stage = useTestStage();
const UPLOADS = 200;
const USER = 14;

describe('POST /api/v1/user/me/file, 200 at once', () => {
  it('gives 200 concurrent uploads 200 distinct ids, records and objects', async () => {
    const responses = await Promise.all(
      Array.from({ length: UPLOADS }, (_, i) =>
        stage().upload(USER, uploadForm(`file ${i}`, { name: `f${i}.txt`, type: 'other' })),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array.from({ length: UPLOADS }, () => 201));
    const ids = (await Promise.all(responses.map((r) => r.json() as Promise<{ id: number }>))).map(
      (body) => body.id,
    );
    expect(new Set(ids).size).toBe(UPLOADS);
    const listed = (await (await stage().request('/api/v1/user/me/file', { as: USER })).json()) as {
      id: number;
    }[];
    expect(listed.map((f) => f.id).sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
    const objects = (await stage().objectKeys()).filter((k) => k.startsWith(`users/${USER}/`));
    expect(objects).toHaveLength(UPLOADS);
  });
});
