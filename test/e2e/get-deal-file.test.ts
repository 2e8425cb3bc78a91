import { describe, expect, it } from 'vitest';
import { dealFile, dealFileBody, seedDeals } from '#test/support/deal-fixtures.ts';
import { expectRefused } from '#test/support/expect-refused.ts';
import { NOT_FOUND, UNAUTHORIZED } from '#test/support/fastapi-bodies.ts';
import { useTestStage } from '#test/support/test-stage.ts';

const stage = useTestStage();

const fileUrl = (groupId: number | string, dealId: number | string, fileId: number | string) =>
  `/api/v1/group/${groupId}/deal/${dealId}/file/${fileId}`;

/**
 * Group 1 holds deals 1 and 2, group 2 a deal 1, each with one file; a viewer and an editor of
 * group 1, and an editor of group 2 only.
 */
async function world() {
  const users = { viewer: 12, editor: 13, neighbour: 21 };
  const files = {
    theFile: dealFile(1, 1, 101, { type: 'deck' }),
    otherDeal: dealFile(1, 2, 102),
    otherGroup: dealFile(2, 1, 103),
  };
  await seedDeals(stage(), {
    groups: [1, 2],
    members: [
      { groupId: 1, userId: users.viewer, role: 'viewer' },
      { groupId: 1, userId: users.editor, role: 'editor' },
      { groupId: 2, userId: users.neighbour, role: 'editor' },
    ],
    deals: [
      { groupId: 1, dealId: 1 },
      { groupId: 1, dealId: 2 },
      { groupId: 2, dealId: 1 },
    ],
    files: Object.values(files),
  });
  return { users, files };
}

describe('GET /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id} (extension)', () => {
  it('gives a member, viewer or editor, the file in the DealFile shape', async () => {
    const { users, files } = await world();
    for (const as of [users.viewer, users.editor]) {
      const response = await stage().request(fileUrl(1, 1, files.theFile.id), { as });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(await response.json()).toEqual(dealFileBody(files.theFile));
    }
  });

  it('answers the same 404 to a non-member, through another deal or group, and for a missing file', async () => {
    const { users, files } = await world();
    const asked = [
      { as: users.neighbour, path: fileUrl(1, 1, files.theFile.id) },
      { as: users.editor, path: fileUrl(1, 2, files.theFile.id) },
      { as: users.editor, path: fileUrl(2, 1, files.otherGroup.id) },
      { as: users.neighbour, path: fileUrl(2, 1, files.theFile.id) },
      { as: users.editor, path: fileUrl(1, 1, 999) },
      { as: users.editor, path: fileUrl(1, 9, 999) },
    ];
    for (const { as, path } of asked) {
      await expectRefused(stage(), () => stage().request(path, { as }), 404, NOT_FOUND);
    }
  });

  it('a non-integer id → 422 int_parsing at its place in the path', async () => {
    await world();
    for (const [path, name] of [
      [fileUrl('g', 1, 101), 'group_id'],
      [fileUrl(1, 'd', 101), 'deal_id'],
      [fileUrl(1, 1, 'f'), 'file_id'],
    ] as const) {
      const input = path.split('/').find((part) => /^[gdf]$/.test(part));
      await expectRefused(stage(), () => stage().request(path, { as: 13 }), 422, {
        detail: [
          {
            type: 'int_parsing',
            loc: ['path', name],
            msg: 'Input should be a valid integer, unable to parse string as an integer',
            input,
          },
        ],
      });
    }
  });

  it('without a token → 401, as API Gateway answers it', async () => {
    await world();
    await expectRefused(stage(), () => stage().request(fileUrl(1, 1, 101)), 401, UNAUTHORIZED);
  });
});
