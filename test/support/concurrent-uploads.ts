import { expect } from 'vitest';
import { uploadForm } from './multipart.ts';
import type { TestStage } from './test-stage.ts';

/**
 * Sends `uploads` multipart uploads for one user at once, and holds that each got a 201 and
 * an id of its own, and that each is listed and stored once. Ids come in blocks of 50, so
 * more than 50 make block refills race.
 */
export async function expectConcurrentUploadsApart(
  stage: TestStage,
  userId: number,
  uploads: number,
): Promise<void> {
  const responses = await Promise.all(
    Array.from({ length: uploads }, (_, i) =>
      stage.upload(userId, uploadForm(`file ${i}`, { name: `f${i}.txt`, type: 'other' })),
    ),
  );
  expect(responses.map((r) => r.status)).toEqual(Array.from({ length: uploads }, () => 201));
  const ids = (await Promise.all(responses.map((r) => r.json() as Promise<{ id: number }>))).map(
    (body) => body.id,
  );
  expect(new Set(ids).size).toBe(uploads);
  const listed = (await (await stage.request('/api/v1/user/me/file', { as: userId })).json()) as {
    id: number;
  }[];
  expect(listed.map((f) => f.id).sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
  const objects = (await stage.objectKeys()).filter((k) => k.startsWith(`users/${userId}/`));
  expect(objects).toHaveLength(uploads);
}
