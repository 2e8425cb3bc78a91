/**
 * The access trail's entries for deal files (issue 55 item 2): the operator's copy, an
 * editor's change and delete, each in the deal's trail with its change; refused deal
 * accesses recorded there too, those of every deal-file route (a list and a read only when
 * refused).
 */
import { describe, expect, it } from 'vitest';
import { dealFile, seedDeals } from '#test/support/deal-fixtures.ts';
import { expectRefused } from '#test/support/expect-refused.ts';
import { NOT_FOUND, type UserFileBody } from '#test/support/fastapi-bodies.ts';
import { uploadForm } from '#test/support/multipart.ts';
import { useTestStage } from '#test/support/test-stage.ts';
import { entriesAddedBy, storedEntry } from '#test/support/trail-entries.ts';

const stage = useTestStage(() => ({ malwareScanning: false }));
const USER_AGENT = 'trail-test/1.0 (deal files)';
const EDITOR = 91;
const VIEWER = 92;
const OUTSIDER = 93;
const EDITORS_ONLY = { detail: 'Only editors of this group may change its deal files' };

const path = (g: number, d: number, id: number) =>
  `/api/v1/group/${String(g)}/deal/${String(d)}/file/${String(id)}`;

const send = (method: 'PUT' | 'DELETE', as: number, to: string, body?: unknown) =>
  stage().request(to, {
    method,
    as,
    headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

/** Group g with deal 1, the editor and the viewer (and `viewers`), and deal file `id`. */
async function seed(g: number, id: number, viewers: readonly number[] = []) {
  await seedDeals(stage(), {
    groups: [g],
    members: [
      { groupId: g, userId: EDITOR, role: 'editor' },
      ...[VIEWER, ...viewers].map((userId) => ({ groupId: g, userId, role: 'viewer' as const })),
    ],
    deals: [{ groupId: g, dealId: 1 }],
    files: [dealFile(g, 1, id)],
  });
}

const requested = (userId: number, response: Response) => ({
  actor: 'user',
  user_id: userId,
  request_id: response.headers.get('apigw-requestid'),
  source_ip: '127.0.0.1',
  user_agent: USER_AGENT,
});

/** The one entry `call` adds, with the answer it got. */
async function onlyEntry(call: () => Promise<Response>) {
  let response: Response | undefined;
  const added = await entriesAddedBy(stage(), async () => {
    response = await call();
  });
  expect(added).toHaveLength(1);
  return { entry: added[0] ?? {}, response: response as Response };
}

describe('the access trail of deal files', () => {
  it("records the operator's copy of a user file: the copy, its source and the source's owner", async () => {
    await seedDeals(stage(), { groups: [950], deals: [{ groupId: 950, dealId: 2 }] });
    const upload = await stage().upload(94, uploadForm('the deck', { name: 'deck.pdf' }));
    const source = (await upload.json()) as UserFileBody;
    let copy = 0;
    const added = await entriesAddedBy(stage(), async () => {
      const { code, out } = await stage().admin([
        ...['deal-file', 'add', '--group', '950', '--deal', '2'],
        ...['--from-user-file', String(source.id), '--user', '94'],
      ]);
      expect(code).toBe(0);
      copy = (JSON.parse(out) as { id: number }).id;
    });
    // Filed under the source: its owner's query of their file finds every copy made of it.
    expect(added).toEqual([
      storedEntry(added[0] ?? {}, {
        scope: 'DEAL#950#2',
        file: `FILE#${String(source.id)}`,
        action: 'deal_file.add',
        outcome: 'allowed',
        actor: 'operator',
        group_id: 950,
        deal_id: 2,
        file_id: copy,
        source_file_id: source.id,
        source_user_id: 94,
      }),
    ]);
  });

  it("records an editor's change of type with the change, and nothing when nothing changes", async () => {
    await seed(951, 9511);
    const { entry, response } = await onlyEntry(() =>
      send('PUT', EDITOR, path(951, 1, 9511), { type: 'financials' }),
    );
    expect(response.status).toBe(200);
    expect(entry).toEqual(
      storedEntry(entry, {
        scope: 'DEAL#951#1',
        file: 'FILE#9511',
        action: 'deal_file.update',
        outcome: 'allowed',
        group_id: 951,
        deal_id: 1,
        file_id: 9511,
        ...requested(EDITOR, response),
      }),
    );
    const again = await entriesAddedBy(stage(), async () => {
      const same = await send('PUT', EDITOR, path(951, 1, 9511), { type: 'financials' });
      expect(same.status).toBe(200);
      await same.body?.cancel();
    });
    expect(again).toEqual([]);
  });

  it("records an editor's delete with the delete", async () => {
    await seed(952, 9521);
    const { entry, response } = await onlyEntry(() => send('DELETE', EDITOR, path(952, 1, 9521)));
    expect(response.status).toBe(204);
    expect(entry).toEqual(
      storedEntry(entry, {
        scope: 'DEAL#952#1',
        file: 'FILE#9521',
        action: 'deal_file.delete',
        outcome: 'allowed',
        group_id: 952,
        deal_id: 1,
        file_id: 9521,
        ...requested(EDITOR, response),
      }),
    );
  });

  it.each([
    ['a viewer changing a type', 'PUT', 'viewer', 403, EDITORS_ONLY, 'deal_file.update'],
    ['a viewer deleting', 'DELETE', 'viewer', 403, EDITORS_ONLY, 'deal_file.delete'],
    ['a non-member changing a type', 'PUT', 'outsider', 404, NOT_FOUND, 'deal_file.update'],
    ['a non-member deleting', 'DELETE', 'outsider', 404, NOT_FOUND, 'deal_file.delete'],
  ] as const)(
    'records %s as refused, in the deal’s trail, and changes nothing',
    async (_, method, role, status, body, action) => {
      const g = 960 + (role === 'viewer' ? 0 : 2) + (method === 'PUT' ? 0 : 1);
      // A caller of its own: one caller's refusals share five slots a minute.
      const as = g * 10;
      await seed(g, 9600, role === 'viewer' ? [as] : []);
      let answered: Response | undefined;
      const added = await entriesAddedBy(stage(), () =>
        expectRefused(
          stage(),
          async () =>
            (answered = (
              await send(
                method,
                as,
                path(g, 1, 9600),
                method === 'PUT' ? { type: 'deck' } : undefined,
              )
            ).clone()),
          status,
          body,
        ),
      );
      expect(added).toHaveLength(1);
      const [entry] = added;
      expect(entry).toEqual({
        ...storedEntry(entry ?? {}, {
          scope: `DEAL#${String(g)}#1`,
          file: 'FILE#9600',
          action,
          outcome: 'refused',
          status,
          group_id: g,
          deal_id: 1,
          file_id: 9600,
          ...requested(as, answered as Response),
        }),
        entry: expect.stringMatching(new RegExp(`#refused#${String(as)}#[0-4]$`)) as unknown,
      });
    },
  );

  it("records a member's download link, before the link, and a non-member's refusal", async () => {
    await seed(970, 9700);
    const download = (as: number) =>
      stage().request(`${path(970, 1, 9700)}/download`, {
        as,
        redirect: 'manual',
        headers: { 'user-agent': USER_AGENT },
      });
    const { entry, response } = await onlyEntry(() => download(VIEWER));
    expect(response.status).toBe(302);
    expect(entry).toEqual(
      storedEntry(entry, {
        scope: 'DEAL#970#1',
        file: 'FILE#9700',
        action: 'deal_file.download',
        outcome: 'allowed',
        group_id: 970,
        deal_id: 1,
        file_id: 9700,
        ...requested(VIEWER, response),
      }),
    );
    let answered: Response | undefined;
    const refused = await entriesAddedBy(stage(), () =>
      expectRefused(
        stage(),
        async () => (answered = (await download(OUTSIDER)).clone()),
        404,
        NOT_FOUND,
      ),
    );
    expect(refused).toEqual([
      {
        ...storedEntry(refused[0] ?? {}, {
          scope: 'DEAL#970#1',
          file: 'FILE#9700',
          action: 'deal_file.download',
          outcome: 'refused',
          status: 404,
          group_id: 970,
          deal_id: 1,
          file_id: 9700,
          ...requested(OUTSIDER, answered as Response),
        }),
        entry: expect.stringMatching(new RegExp(`#refused#${String(OUTSIDER)}#[0-4]$`)) as unknown,
      },
    ]);
  });

  it.each([
    ['list', 'deal_file.list', 9761, undefined],
    ['read', 'deal_file.read', 9762, 9760],
  ] as const)(
    "records a non-member's %s of a deal's files as refused; a member's, not at all",
    async (_, action, outsider, fileId) => {
      const g = outsider;
      await seed(g, 9760);
      const target =
        fileId === undefined ? `/api/v1/group/${String(g)}/deal/1/file` : path(g, 1, fileId);
      const get = (as: number) =>
        stage().request(target, { as, headers: { 'user-agent': USER_AGENT } });
      const allowed = await entriesAddedBy(stage(), async () => {
        for (const as of [VIEWER, EDITOR]) {
          const response = await get(as);
          expect(response.status).toBe(200);
          await response.body?.cancel();
        }
      });
      expect(allowed).toEqual([]);
      let answered: Response | undefined;
      const refused = await entriesAddedBy(stage(), () =>
        expectRefused(
          stage(),
          async () => (answered = (await get(outsider)).clone()),
          404,
          NOT_FOUND,
        ),
      );
      expect(refused).toEqual([
        {
          ...storedEntry(refused[0] ?? {}, {
            scope: `DEAL#${String(g)}#1`,
            ...(fileId === undefined ? {} : { file: `FILE#${String(fileId)}` }),
            action,
            outcome: 'refused',
            status: 404,
            group_id: g,
            deal_id: 1,
            ...(fileId === undefined ? {} : { file_id: fileId }),
            ...requested(outsider, answered as Response),
          }),
          entry: expect.stringMatching(
            new RegExp(
              `^${String(refused[0]?.at).slice(0, 16)}#refused#${String(outsider)}#[0-4]$`,
            ),
          ) as unknown,
        },
      ]);
    },
  );
});
