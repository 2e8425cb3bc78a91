/**
 * An account of any size can list its files: 30,000 files with 60-character names come in
 * one gzipped answer; uncompressed they would be over Lambda's 6 MB, and the answer is a 400
 * that says how to page, never the platform's 500.
 */
import { describe, expect, it } from 'vitest';
import { toUserFileItem } from '#shared/storage/file-items.ts';
import { userFileObjectKey } from '#shared/storage/keys.ts';
import { LIST_TOO_LARGE_DETAIL } from '#shared/http/list-too-large.ts';
import { useTestStage } from '#test/support/test-stage.ts';

const stage = useTestStage();
const USER = 5400;
const FILES = 30_000;
const LIST = '/api/v1/user/me/file';

describe('a big account', () => {
  it('lists 30,000 files with 60-character names in one gzipped answer, newest first', async () => {
    await stage().put(
      Array.from({ length: FILES }, (_, i) =>
        toUserFileItem({
          id: i + 1,
          userId: USER,
          name: `${String(i + 1).padStart(8, '0')}-${'quarterly-report-'.repeat(3)}x.pdf`.slice(
            0,
            60,
          ),
          type: 'financials',
          createdAt: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
          updatedAt: null,
          isArchived: false,
          filesize: 1000 + i,
          location: `s3://${'file-service-bucket-of-a-deployed-stage-'.slice(0, 40)}/${userFileObjectKey(USER, i + 1)}`,
        }),
      ),
    );
    const zipped = await stage().request(LIST, {
      as: USER,
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(zipped.status).toBe(200);
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    const files = (await zipped.json()) as { id: number; name: string }[];
    expect(files).toHaveLength(FILES);
    expect(files[0]?.id).toBe(FILES);
    expect(files.at(-1)?.id).toBe(1);
    expect(files[0]?.name).toHaveLength(60);
    // What the same list would weigh unzipped: more than Lambda answers.
    expect(Buffer.byteLength(JSON.stringify(files))).toBeGreaterThan(6 * 1024 * 1024);

    const plain = await stage().request(LIST, {
      as: USER,
      headers: { 'accept-encoding': 'identity' },
    });
    expect(plain.status).toBe(400);
    expect(await plain.json()).toEqual({ detail: LIST_TOO_LARGE_DETAIL });

    const paged = await stage().request(`${LIST}?limit=1000`, {
      as: USER,
      headers: { 'accept-encoding': 'identity' },
    });
    expect(paged.status).toBe(200);
    expect(((await paged.json()) as unknown[]).length).toBe(1000);
    expect(paged.headers.get('link')).toMatch(/rel="next"$/);
  });
});
