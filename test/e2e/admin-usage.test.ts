import { describe, expect, it } from 'vitest';
import { uploadForm } from '#test/support/multipart.ts';
import { useTestStage } from '#test/support/test-stage.ts';

// Limits of its own, so the CLI is seen to print the stage's and not the defaults.
const stage = useTestStage(() => ({
  settings: { MAX_FILES_PER_USER: 7, MAX_BYTES_PER_USER: 100_000 },
}));

async function usage(user: number) {
  const { code, out, err } = await stage().admin(['usage', '--user', String(user)]);
  expect(err).toBe('');
  expect(code).toBe(0);
  return JSON.parse(out) as unknown;
}

const FROM = expect.stringMatching(
  /^the local stage's MAX_FILES_PER_USER and MAX_BYTES_PER_USER, as its record \(.*local-stage\.json\) names them$/,
) as string;

describe('npm run admin -- usage', () => {
  it("prints a user's files and bytes against the stage's limits", async () => {
    for (const content of ['a first file', 'and a second one']) {
      expect((await stage().upload(61, uploadForm(content))).status).toBe(201);
    }
    // A direct upload signed and not sent holds its declared size.
    const started = await stage().request('/api/v1/user/me/file/upload', {
      method: 'POST',
      as: 61,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'model.xlsx', type: 'financials', filesize: 4096 }),
    });
    expect(started.status).toBe(201);
    expect(await usage(61)).toEqual({
      user_id: 61,
      files: { used: 2, reserved: 1, allowed: 7 },
      bytes: {
        used: 'a first file'.length + 'and a second one'.length,
        reserved: 4096,
        allowed: 100_000,
      },
      allowed_from: FROM,
    });
  });

  it('prints zeros for a user with no files, and writes nothing', async () => {
    const before = await stage().stored();
    expect(await usage(62)).toEqual({
      user_id: 62,
      files: { used: 0, reserved: 0, allowed: 7 },
      bytes: { used: 0, reserved: 0, allowed: 100_000 },
      allowed_from: FROM,
    });
    expect(await stage().stored()).toEqual(before);
  });

  it('refuses a command without --user', async () => {
    const { code, out, err } = await stage().admin(['usage']);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err.split('\n')[0]).toBe('admin: usage: --user is required');
  });
});
