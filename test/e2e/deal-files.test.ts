import { describe, expect, it } from 'vitest';
import { dealFileObjectKey } from '#shared/storage/keys.ts';
import type { DealFile } from '#shared/deal-files/deal-file.ts';
import { dealFile, dealFileBody, seedDeals } from '#test/support/deal-fixtures.ts';
import { expectRefused } from '#test/support/expect-refused.ts';
import { useTestStage } from '#test/support/test-stage.ts';
import { fileTypeError, NOT_FOUND, UNAUTHORIZED } from '#test/support/fastapi-bodies.ts';

const stage = useTestStage();

const EDITORS_ONLY = { detail: 'Only editors of this group may change its deal files' };
/** Pydantic's enum error for a bad `type` in the body. */
const enumError = (input: unknown) => fileTypeError(['body', 'type'], input);

const fileUrl = (groupId: number | string, dealId: number | string, fileId: number | string) =>
  `/api/v1/group/${groupId}/deal/${dealId}/file/${fileId}`;
const listUrl = (groupId: number | string, dealId: number | string) =>
  `/api/v1/group/${groupId}/deal/${dealId}/file`;

const put = (path: string, as: number | undefined, body: unknown) =>
  stage().request(path, {
    method: 'PUT',
    ...(as === undefined ? {} : { as }),
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

/** The stored deal-file record, as the table holds it. */
const storedFile = async (file: DealFile) =>
  (await stage().items()).find(
    (item) =>
      item.PK === `GROUP#${file.groupId}#DEAL#${file.dealId}` && item.SK === `FILE#${file.id}`,
  );

/**
 * Group g holds deals 1 and 2 and its neighbour g+1 holds a deal 1 too, with one file each;
 * a non-member, a viewer and an editor of group g.
 */
async function world(g: number) {
  const users = { nonMember: g * 10 + 1, viewer: g * 10 + 2, editor: g * 10 + 3 };
  const files = {
    theFile: dealFile(g, 1, g * 100 + 1),
    otherDeal: dealFile(g, 2, g * 100 + 2),
    otherGroup: dealFile(g + 1, 1, g * 100 + 3),
    missing: dealFile(g, 1, g * 100 + 9),
  };
  await seedDeals(stage(), {
    groups: [g, g + 1],
    members: [
      { groupId: g, userId: users.viewer, role: 'viewer' },
      { groupId: g, userId: users.editor, role: 'editor' },
      // Editor of the neighbour too, so a 404 there is about the path, not the person.
      { groupId: g + 1, userId: users.nonMember, role: 'editor' },
    ],
    deals: [
      { groupId: g, dealId: 1 },
      { groupId: g, dealId: 2 },
      { groupId: g + 1, dealId: 1 },
    ],
    files: [files.theFile, files.otherDeal, files.otherGroup],
  });
  return { users, files };
}

describe('PUT /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id}: who may change what', () => {
  const cases = [
    ['nonMember', 'theFile', 404],
    ['nonMember', 'otherDeal', 404],
    ['nonMember', 'otherGroup', 404],
    ['nonMember', 'missing', 404],
    ['viewer', 'theFile', 403],
    ['viewer', 'otherDeal', 404],
    ['viewer', 'otherGroup', 404],
    ['viewer', 'missing', 404],
    ['editor', 'otherDeal', 404],
    ['editor', 'otherGroup', 404],
    ['editor', 'missing', 404],
  ] as const;

  it.each(cases)(
    '%s × %s → %i, one body for every 404, nothing changed',
    async (who, which, status) => {
      const g = 100 + cases.findIndex(([w, f]) => w === who && f === which) * 2;
      const { users, files } = await world(g);
      // Every file is asked for through group g's deal 1: the path the caller can name.
      await expectRefused(
        stage(),
        () => put(fileUrl(g, 1, files[which].id), users[who], { type: 'financials' }),
        status,
        status === 403 ? EDITORS_ONLY : NOT_FOUND,
      );
    },
  );

  it('editor × the file → 200 DealFile with the new type and updated_at; the record follows', async () => {
    const { users, files } = await world(200);
    const before = Date.now();
    const response = await put(fileUrl(200, 1, files.theFile.id), users.editor, {
      type: 'financials',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = (await response.json()) as { updated_at: string };
    expect(body).toEqual({
      ...dealFileBody(files.theFile),
      type: 'financials',
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) as string,
    });
    expect(Date.parse(body.updated_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(await storedFile(files.theFile)).toMatchObject({
      type: 'financials',
      updated_at: body.updated_at,
      name: files.theFile.name,
      filesize: files.theFile.filesize,
      location: files.theFile.location,
    });
  });

  it('the editor of one group gets 404 through another group’s path, nothing changed', async () => {
    const { users, files } = await world(202);
    await expectRefused(
      stage(),
      () => put(fileUrl(203, 1, files.otherGroup.id), users.editor, { type: 'full' }),
      404,
      NOT_FOUND,
    );
  });

  it('a deal that is not in the group is a 404, even for a file id that exists', async () => {
    const { users, files } = await world(204);
    await expectRefused(
      stage(),
      () => put(fileUrl(204, 7, files.theFile.id), users.editor, { type: 'full' }),
      404,
      NOT_FOUND,
    );
  });

  it('without a token → 401, nothing changed', async () => {
    const { files } = await world(206);
    await expectRefused(
      stage(),
      () => put(fileUrl(206, 1, files.theFile.id), undefined, { type: 'full' }),
      401,
      UNAUTHORIZED,
    );
  });
});

describe('PUT deal file: the body', () => {
  it('{} is accepted and changes nothing: 200 with the file as it is', async () => {
    const { users, files } = await world(300);
    const before = await stage().stored();
    const response = await put(fileUrl(300, 1, files.theFile.id), users.editor, {});
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(dealFileBody(files.theFile));
    expect(await stage().stored()).toEqual(before);
  });

  it('the type it already has changes nothing, so updated_at stays', async () => {
    const { users, files } = await world(302);
    const before = await stage().stored();
    const response = await put(fileUrl(302, 1, files.theFile.id), users.editor, { type: 'deck' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(dealFileBody(files.theFile));
    expect(await stage().stored()).toEqual(before);
  });

  it('{"type": null} clears the type; a second one changes nothing more', async () => {
    const { users, files } = await world(304);
    const first = await put(fileUrl(304, 1, files.theFile.id), users.editor, { type: null });
    expect(first.status).toBe(200);
    const cleared = (await first.json()) as { type: unknown; updated_at: string };
    expect(cleared).toEqual({
      ...dealFileBody(files.theFile),
      type: null,
      updated_at: expect.any(String) as string,
    });
    expect(await storedFile(files.theFile)).toMatchObject({
      type: null,
      updated_at: cleared.updated_at,
    });
    const before = await stage().stored();
    const second = await put(fileUrl(304, 1, files.theFile.id), users.editor, { type: null });
    expect(second.status).toBe(200);
    expect(await second.json()).toEqual(cleared);
    expect(await stage().stored()).toEqual(before);
  });

  it('fields other than type are ignored, never applied', async () => {
    const { users, files } = await world(306);
    const response = await put(fileUrl(306, 1, files.theFile.id), users.editor, {
      type: 'mini',
      name: 'renamed.pdf',
      id: 1,
      deal_id: 2,
      is_archived: true,
      created_at: '2000-01-01T00:00:00Z',
      filesize: 1,
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toEqual({
      ...dealFileBody(files.theFile),
      type: 'mini',
      updated_at: body.updated_at,
    });
    expect(await storedFile(files.theFile)).toMatchObject({
      name: files.theFile.name,
      id: files.theFile.id,
      deal_id: 1,
      is_archived: false,
      created_at: files.theFile.createdAt,
      filesize: files.theFile.filesize,
      type: 'mini',
    });
  });

  it('a type outside the enum → 422 enum at ["body","type"], nothing changed', async () => {
    const { users, files } = await world(308);
    await expectRefused(
      stage(),
      () => put(fileUrl(308, 1, files.theFile.id), users.editor, { type: 'Deck' }),
      422,
      {
        detail: [enumError('Deck')],
      },
    );
  });

  it.each([
    [
      'a list',
      '[]',
      {
        type: 'model_attributes_type',
        loc: ['body'],
        msg: 'Input should be a valid dictionary or object to extract fields from',
        input: [],
      },
    ],
    ['a number type', '{"type": 3}', enumError(3)],
    ['no body', '', { type: 'missing', loc: ['body'], msg: 'Field required', input: null }],
    [
      'broken JSON',
      '{"type": ',
      {
        type: 'json_invalid',
        loc: ['body', 9],
        msg: 'JSON decode error',
        input: {},
        ctx: { error: 'Expecting value' },
      },
    ],
  ])('%s → 422, nothing changed', async (_, body, error) => {
    const { users, files } = await world(310);
    await expectRefused(
      stage(),
      () => put(fileUrl(310, 1, files.theFile.id), users.editor, body),
      422,
      { detail: [error] },
    );
  });

  it('a viewer or a non-member with a bad body gets the 422: validation comes first, as in FastAPI', async () => {
    const { users, files } = await world(312);
    for (const as of [users.viewer, users.nonMember]) {
      await expectRefused(
        stage(),
        () => put(fileUrl(312, 1, files.theFile.id), as, { type: 'x' }),
        422,
        {
          detail: [enumError('x')],
        },
      );
    }
  });

  it('a viewer gets the 403 even for a PUT that would change nothing', async () => {
    const { users, files } = await world(314);
    for (const body of [{}, { type: null }, { type: 'deck' }]) {
      await expectRefused(
        stage(),
        () => put(fileUrl(314, 1, files.theFile.id), users.viewer, body),
        403,
        EDITORS_ONLY,
      );
    }
  });

  it('a JSON null body is no body, as FastAPI reads it: 422 missing', async () => {
    const { users, files } = await world(316);
    await expectRefused(
      stage(),
      () => put(fileUrl(316, 1, files.theFile.id), users.editor, 'null'),
      422,
      { detail: [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }] },
    );
  });
});

describe('PUT deal file: path ids', () => {
  const intParsing = (name: string, input: string) => ({
    type: 'int_parsing',
    loc: ['path', name],
    msg: 'Input should be a valid integer, unable to parse string as an integer',
    input,
  });

  it.each([
    ['group_id', fileUrl('seven', 1, 1), [intParsing('group_id', 'seven')]],
    ['deal_id', fileUrl(1, '3.5', 1), [intParsing('deal_id', '3.5')]],
    ['file_id', fileUrl(1, 1, '1e3'), [intParsing('file_id', '1e3')]],
    [
      'all three, in path order',
      fileUrl('a', 'b', 'c'),
      [intParsing('group_id', 'a'), intParsing('deal_id', 'b'), intParsing('file_id', 'c')],
    ],
  ])('%s not an integer → 422 int_parsing', async (_, path, errors) => {
    await world(400);
    await expectRefused(stage(), () => put(path, 4003, { type: 'deck' }), 422, { detail: errors });
  });

  it('path and body errors come in one 422', async () => {
    await world(402);
    await expectRefused(stage(), () => put(fileUrl(402, 'x', 1), 4023, { type: 'nope' }), 422, {
      detail: [intParsing('deal_id', 'x'), enumError('nope')],
    });
  });

  it.each([
    ['group_id', (_g: number, f: number) => fileUrl('9223372036854775808', 1, f)],
    ['deal_id', (g: number, f: number) => fileUrl(g, '123456789012345678901234567890', f)],
    ['file_id', (g: number) => fileUrl(g, 1, '99999999999999999999')],
  ])('an integer %s beyond any id names nothing: 404, as any unknown id', async (_, url) => {
    const { users, files } = await world(406);
    for (const who of [users.editor, users.viewer]) {
      await expectRefused(
        stage(),
        () => put(url(406, files.theFile.id), who, { type: 'deck' }),
        404,
        NOT_FOUND,
      );
    }
  });

  it('an id holding an encoded slash is no route, as Starlette routes the decoded path: 404', async () => {
    const { users, files } = await world(407);
    await expectRefused(
      stage(),
      () => put(fileUrl('407%2F1', 1, files.theFile.id), users.editor, { type: 'nope' }),
      404,
      NOT_FOUND,
    );
  });

  it('ids Pydantic reads as integers (" 7 ", "+7", "7.0") reach the file', async () => {
    const { users, files } = await world(404);
    const response = await put(
      `/api/v1/group/%20404%20/deal/+1/file/${files.theFile.id}.0`,
      users.editor,
      { type: 'nano' },
    );
    expect(response.status).toBe(200);
    expect(((await response.json()) as { type: string }).type).toBe('nano');
  });
});

describe('PUT deal file: concurrency', () => {
  it('PUTs racing a DELETE never recreate the file', async () => {
    const { users, files } = await world(500);
    const url = fileUrl(500, 1, files.theFile.id);
    const puts = Array.from({ length: 20 }, (_, i) =>
      put(url, users.editor, { type: i % 2 === 0 ? 'full' : 'mini' }),
    );
    const deleted = stage().request(url, { method: 'DELETE', as: users.editor });
    const responses = await Promise.all([...puts, deleted]);
    expect((responses.at(-1) as Response).status).toBe(204);
    for (const response of responses.slice(0, -1)) expect([200, 404]).toContain(response.status);
    expect(await storedFile(files.theFile)).toBeUndefined();
    const after = await put(url, users.editor, { type: 'deck' });
    expect(after.status).toBe(404);
    expect(await storedFile(files.theFile)).toBeUndefined();
  });

  it('concurrent PUTs all succeed and the record holds one of them', async () => {
    const { users, files } = await world(502);
    const url = fileUrl(502, 1, files.theFile.id);
    const types = ['full', 'mini', 'nano', 'other', 'snapshot'] as const;
    const responses = await Promise.all(types.map((type) => put(url, users.editor, { type })));
    expect(responses.map((r) => r.status)).toEqual(types.map(() => 200));
    const stored = await storedFile(files.theFile);
    expect(types).toContain(stored?.type);
  });
});

describe('GET /api/v1/group/{group_id}/deal/{deal_id}/file (extension)', () => {
  it('lists the deal’s files to viewers and editors, newest first, in the DealFile shape', async () => {
    const { users, files } = await world(600);
    const newer = dealFile(600, 1, 60099, { type: null, name: 'Ünïcode – memo.docx' });
    await seedDeals(stage(), { groups: [], deals: [], files: [newer] });
    for (const as of [users.viewer, users.editor]) {
      const response = await stage().request(listUrl(600, 1), { as });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual([dealFileBody(newer), dealFileBody(files.theFile)]);
    }
  });

  it('an empty deal lists []', async () => {
    await seedDeals(stage(), {
      groups: [602],
      members: [{ groupId: 602, userId: 6021, role: 'viewer' }],
      deals: [{ groupId: 602, dealId: 1 }],
    });
    const response = await stage().request(listUrl(602, 1), { as: 6021 });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([]);
  });

  it.each([
    ['a non-member', 'nonMember', 600 + 4, 1],
    ['a member, for a deal not in the group', 'viewer', 600 + 4, 9],
    ['a member, for another group', 'editor', 600 + 5, 1],
  ] as const)('%s → 404', async (_, who, groupId, dealId) => {
    const { users } = await world(604);
    await expectRefused(
      stage(),
      () => stage().request(listUrl(groupId, dealId), { as: users[who] }),
      404,
      NOT_FOUND,
    );
  });

  it('pages newest first through the Link headers, to members only', async () => {
    const { users, files } = await world(606);
    const [oldest, middle, newest] = [60611, 60612, 60613].map((id) => dealFile(606, 1, id));
    const more = [oldest, middle, newest].filter((file) => file !== undefined);
    await seedDeals(stage(), { groups: [], deals: [], files: more });
    const first = await stage().request(`${listUrl(606, 1)}?limit=2`, { as: users.viewer });
    expect(first.status).toBe(200);
    // Created a second apart, in id order: the newest are the last seeded.
    expect(await first.json()).toEqual([newest, middle].map((file) => file && dealFileBody(file)));
    const next = /^<([^>]+)>; rel="next"$/.exec(first.headers.get('link') ?? '')?.[1] ?? '';
    expect(next).toMatch(/^\/api\/v1\/group\/606\/deal\/1\/file\?limit=2&cursor=/);
    const second = await stage().request(next, { as: users.viewer });
    expect(await second.json()).toEqual(
      [oldest, files.theFile].map((file) => file && dealFileBody(file)),
    );
    expect(second.headers.get('link')).toBeNull();
    await expectRefused(
      stage(),
      () => stage().request(next, { as: users.nonMember }),
      404,
      NOT_FOUND,
    );
  });

  it('bad ids → 422 int_parsing', async () => {
    await expectRefused(stage(), () => stage().request(listUrl('g', 1), { as: 1 }), 422, {
      detail: [
        {
          type: 'int_parsing',
          loc: ['path', 'group_id'],
          msg: 'Input should be a valid integer, unable to parse string as an integer',
          input: 'g',
        },
      ],
    });
  });
});

describe('DELETE /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id} (extension)', () => {
  it('an editor deletes the record and its object: 204, then 404', async () => {
    const { users, files } = await world(700);
    const key = dealFileObjectKey(700, 1, files.theFile.id);
    expect(await stage().objectKeys()).toContain(key);
    const response = await stage().request(fileUrl(700, 1, files.theFile.id), {
      method: 'DELETE',
      as: users.editor,
    });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    expect(await storedFile(files.theFile)).toBeUndefined();
    expect(await stage().objectKeys()).not.toContain(key);
    await expectRefused(
      stage(),
      () =>
        stage().request(fileUrl(700, 1, files.theFile.id), { method: 'DELETE', as: users.editor }),
      404,
      NOT_FOUND,
    );
  });

  it.each([
    ['viewer', 'theFile', 403],
    ['nonMember', 'theFile', 404],
    ['editor', 'otherDeal', 404],
    ['editor', 'otherGroup', 404],
    ['editor', 'missing', 404],
  ] as const)('%s × %s → %i, record and object kept', async (who, which, status) => {
    const { users, files } = await world(702);
    await expectRefused(
      stage(),
      () => stage().request(fileUrl(702, 1, files[which].id), { method: 'DELETE', as: users[who] }),
      status,
      status === 403 ? EDITORS_ONLY : NOT_FOUND,
    );
  });
});
