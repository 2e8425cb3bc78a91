import { describe, expect, it } from 'vitest';
import { createHandler } from '#functions/list-user-files/handler.ts';
import { LIST_TOO_LARGE_DETAIL } from '#shared/http/list-too-large.ts';
import { MAX_FILES_IN_ONE_ANSWER } from '#shared/http/list-page.ts';
import type { UserFileRepository } from '#shared/user-files/user-file-repository.ts';
import { apiEvent, bodyOf, lambdaContext } from '#test/support/api-events.ts';
import { listUserFiles } from '#shared/user-files/list-user-files.ts';
import type { UserFile } from '#shared/user-files/user-file.ts';
import { toUserFileBody } from '#shared/user-files/api/user-file-response.ts';

const file = (id: number, createdAt: string): UserFile => ({
  id,
  userId: 1,
  name: `f${id}.pdf`,
  type: 'deck',
  createdAt,
  updatedAt: null,
  isArchived: false,
  filesize: 10,
  location: null,
});

/** A repository that only lists; any other call is a test's mistake. */
const onlyListing = (listByOwner: UserFileRepository['listByOwner']): UserFileRepository => ({
  listByOwner,
  get: () => Promise.reject(new Error('not listed')),
  getMany: () => Promise.reject(new Error('not listed')),
  create: () => Promise.reject(new Error('not listed')),
  update: () => Promise.reject(new Error('not listed')),
  delete: () => Promise.reject(new Error('not listed')),
});

describe('listUserFiles', () => {
  it('asks the repository for the caller only, with the page and the signal', async () => {
    const asked: unknown[] = [];
    const signal = new AbortController().signal;
    const page = { limit: 5 };
    const listed = await listUserFiles(
      {
        listByOwner: (userId, options) => {
          asked.push([userId, options]);
          return Promise.resolve({ items: [file(1, '2026-01-01T00:00:00.000Z')] });
        },
      },
      42,
      { page, signal },
    );
    expect(asked).toEqual([[42, { page, signal }]]);
    expect(listed.items.map((f) => f.id)).toEqual([1]);
  });

  it('shapes a file as the contract UserFile, with no field of ours', () => {
    expect(toUserFileBody(file(5, '2026-01-01T00:00:00.000Z'))).toEqual({
      name: 'f5.pdf',
      id: 5,
      user_id: 1,
      type: 'deck',
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: null,
      is_archived: false,
      filesize: 10,
      location: null,
    });
  });
});

describe('GET /api/v1/user/me/file unpaged, past the most one answer reads', () => {
  it('reads at most MAX_FILES_IN_ONE_ANSWER files, and refuses the list when more remain', async () => {
    const asked: unknown[] = [];
    const handler = createHandler(
      {
        userFiles: onlyListing((_userId, options) => {
          asked.push(options?.page);
          const last = file(1, '2026-01-01T00:00:00.000Z');
          return Promise.resolve({ items: [last], next: { createdAt: last.createdAt, id: 1 } });
        }),
      },
      { USER_ID_CLAIM: 'sub' },
    );
    const result = await handler(
      {
        ...apiEvent({ claims: { sub: '7' }, routeKey: 'GET /api/v1/user/me/file' }),
        rawPath: '/api/v1/user/me/file',
      },
      lambdaContext(),
    );
    expect(asked).toEqual([{ limit: MAX_FILES_IN_ONE_ANSWER }]);
    expect(result.statusCode).toBe(400);
    expect(bodyOf(result)).toEqual({ detail: LIST_TOO_LARGE_DETAIL });
  });
});
