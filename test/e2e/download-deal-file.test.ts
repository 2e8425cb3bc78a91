/**
 * A deal file's download, as its members get it: the operator attaches files with
 * `deal-file add` (bytes first, then the record, pending its scan), the local scanner judges
 * them, and the route hands a member a link exactly as a user file's download hands its owner
 * one, or the hold the scan puts on it. Everyone else gets the deal routes' one 404.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EICAR_TEST_STRING } from '#infra/local/object-store/local-malware-scanner.ts';
import { refusalSlot } from '#shared/access-trail/access-entry.ts';
import { toMemberItem } from '#shared/groups/adapters/dynamo-group-repository.ts';
import { seedDeals } from '#test/support/deal-fixtures.ts';
import { eventually } from '#test/support/eventually.ts';
import { expectRefused } from '#test/support/expect-refused.ts';
import { NOT_FOUND, UNAUTHORIZED } from '#test/support/fastapi-bodies.ts';
import { useTestStage } from '#test/support/test-stage.ts';
import { entriesAddedBy, storedEntry } from '#test/support/trail-entries.ts';

/** Group 1's deal 3 holds files the scanner cannot judge; its deal 4, files never judged. */
const NOT_JUDGED_DEAL = 3;
const SCANNING_DEAL = 4;
const keyIn = (deal: number, key: string) => key.startsWith(`groups/1/deals/${String(deal)}/`);

const stage = useTestStage(() => ({
  scanner: {
    resultFor: (key) => (keyIn(NOT_JUDGED_DEAL, key) ? 'UNSUPPORTED' : undefined),
    // Never let go: a stop does not wait for it.
    gate: (key) => (keyIn(SCANNING_DEAL, key) ? new Promise<void>(() => {}) : Promise.resolve()),
  },
}));

const INFECTED = { detail: 'Malware was found in this file; it cannot be downloaded' };
const SCANNING = { detail: 'The file is being scanned for malware; try again shortly' };
const NOT_JUDGED = {
  detail: 'The file could not be scanned for malware; it is held until an operator reviews it',
};

const downloadUrl = (groupId: number | string, dealId: number | string, fileId: number | string) =>
  `/api/v1/group/${groupId}/deal/${dealId}/file/${fileId}/download`;

const download = (path: string, as?: number) =>
  stage().request(path, { redirect: 'manual', ...(as === undefined ? {} : { as }) });

/** The download once the malware scan has spoken: anything but the 409 with Retry-After. */
const judged = (path: string, as: number) =>
  eventually(async () => {
    const response = await download(path, as);
    if (response.status !== 409 || !response.headers.has('retry-after')) return response;
    await response.body?.cancel();
    return undefined;
  });

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('base64');

const folder = mkdtemp(join(tmpdir(), 'deal-file-download-'));
afterAll(async () => {
  await rm(await folder, { recursive: true, force: true });
});

/** The operator attaches `bytes` under `name` to the deal, as `deal-file add --path` does. */
async function attach(dealId: number, name: string, bytes: Uint8Array, groupId = 1) {
  const path = join(await folder, `${String(groupId)}-${String(dealId)}-${name}`);
  await writeFile(path, bytes);
  const { code, out, err } = await stage().admin(
    ['deal-file', 'add', '--group', groupId, '--deal', dealId, '--path', path, '--name', name].map(
      String,
    ),
  );
  expect({ code, err }).toEqual({ code: 0, err: '' });
  return (JSON.parse(out) as { id: number }).id;
}

/**
 * Group 1 holds deals 1 and 2 (a clean file each, and an infected one in deal 1) and the deals
 * whose files the scanner holds; group 2 a deal 1 with a clean file. A viewer and an editor of
 * group 1, and an editor of group 2 only. Made once for the file's tests.
 */
const world = (() => {
  let made: ReturnType<typeof make> | undefined;
  async function make() {
    const users = { viewer: 12, editor: 13, neighbour: 21 };
    await seedDeals(stage(), {
      groups: [1, 2],
      members: [
        { groupId: 1, userId: users.viewer, role: 'viewer' },
        { groupId: 1, userId: users.editor, role: 'editor' },
        { groupId: 2, userId: users.neighbour, role: 'editor' },
      ],
      deals: [1, 2, NOT_JUDGED_DEAL, SCANNING_DEAL]
        .map((dealId) => ({ groupId: 1, dealId }))
        .concat({ groupId: 2, dealId: 1 }),
    });
    const bytes = randomBytes(200_000);
    const name = 'Term sheet é.pdf';
    const [clean, otherDeal, otherGroup, infected, notJudged, scanning] = await Promise.all([
      attach(1, name, bytes),
      attach(2, 'other deal.pdf', Buffer.from('other deal')),
      attach(1, 'other group.pdf', Buffer.from('other group'), 2),
      attach(1, 'eicar.txt', Buffer.from(EICAR_TEST_STRING)),
      attach(NOT_JUDGED_DEAL, 'archive.zip', Buffer.from('an archive it cannot open')),
      attach(SCANNING_DEAL, 'memo.pdf', Buffer.from('still being scanned')),
    ]);
    const files = { clean, otherDeal, otherGroup, infected, notJudged, scanning };
    return { users, files, bytes, name };
  }
  return () => (made ??= make());
})();

describe('GET /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id}/download (extension)', () => {
  it('gives a viewer and an editor a 302 to a 5-minute link: the bytes, under the file’s name, their digest', async () => {
    const { users, files, bytes } = await world();
    for (const as of [users.viewer, users.editor]) {
      const answer = await judged(downloadUrl(1, 1, files.clean), as);
      expect(answer.status).toBe(302);
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.headers.get('x-checksum-sha256')).toBe(sha256(bytes));
      expect(await answer.text()).toBe('');
      const link = new URL(answer.headers.get('location') ?? '');
      expect(link.pathname).toBe(
        `/${stage().bucket}/groups/1/deals/1/files/${String(files.clean)}`,
      );
      expect(link.searchParams.get('X-Amz-Expires')).toBe('300');

      // The link, followed against the stage's own object store.
      const object = await fetch(link);
      expect(object.status).toBe(200);
      expect(object.headers.get('content-disposition')).toBe(
        `attachment; filename="Term sheet _.pdf"; filename*=UTF-8''Term%20sheet%20%C3%A9.pdf`,
      );
      const served = new Uint8Array(await object.arrayBuffer());
      expect(Buffer.from(served).equals(bytes)).toBe(true);
      expect(sha256(served)).toBe(answer.headers.get('x-checksum-sha256'));
    }
  });

  it('answers the same 404 to a non-member, through another deal or group, and for a missing file', async () => {
    const { users, files } = await world();
    const asked = [
      { as: users.neighbour, path: downloadUrl(1, 1, files.clean) },
      // A file the scan holds tells a non-member nothing either.
      { as: users.neighbour, path: downloadUrl(1, 1, files.infected) },
      { as: users.editor, path: downloadUrl(1, 2, files.clean) },
      { as: users.viewer, path: downloadUrl(2, 1, files.otherGroup) },
      { as: users.neighbour, path: downloadUrl(2, 1, files.clean) },
      { as: users.editor, path: downloadUrl(1, 1, files.otherDeal) },
      { as: users.editor, path: downloadUrl(1, 1, 999_999) },
      { as: users.editor, path: downloadUrl(1, 9, 999_999) },
    ];
    for (const { as, path } of asked) {
      await expectRefused(stage(), () => download(path, as), 404, NOT_FOUND);
    }
  });

  it('a non-integer id → 422 int_parsing at its place in the path', async () => {
    const { users, files } = await world();
    for (const [path, name, input] of [
      [downloadUrl('g', 1, files.clean), 'group_id', 'g'],
      [downloadUrl(1, 'd', files.clean), 'deal_id', 'd'],
      [downloadUrl(1, 1, '1.5'), 'file_id', '1.5'],
    ] as const) {
      await expectRefused(stage(), () => download(path, users.editor), 422, {
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

  it('holds a file while its scan is under way: 409 with Retry-After', async () => {
    const { users, files } = await world();
    const path = downloadUrl(1, SCANNING_DEAL, files.scanning);
    const before = await stage().stored();
    const answer = await download(path, users.viewer);
    expect(answer.status).toBe(409);
    expect(answer.headers.get('retry-after')).toBe('5');
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(await answer.json()).toEqual(SCANNING);
    expect(await stage().stored()).toEqual(before);
  });

  it('holds a file the scanner could not judge for an operator: 409, no Retry-After', async () => {
    const { users, files } = await world();
    const path = downloadUrl(1, NOT_JUDGED_DEAL, files.notJudged);
    const held = await judged(path, users.editor);
    expect(held.headers.has('retry-after')).toBe(false);
    await held.body?.cancel();
    await expectRefused(stage(), () => download(path, users.editor), 409, NOT_JUDGED);
  });

  it('never hands out an infected file: 403', async () => {
    const { users, files } = await world();
    const path = downloadUrl(1, 1, files.infected);
    await (await judged(path, users.viewer)).body?.cancel();
    for (const as of [users.viewer, users.editor]) {
      await expectRefused(stage(), () => download(path, as), 403, INFECTED);
    }
  });

  it("records a member's refused download of an infected file in the deal's trail: 403", async () => {
    const { users, files } = await world();
    const path = downloadUrl(1, 1, files.infected);
    await (await judged(path, users.editor)).body?.cancel();
    // A member of its own: a caller's refusals share five slots a minute.
    const member = 15;
    await stage().put([toMemberItem({ groupId: 1, userId: member, role: 'viewer' })]);
    const userAgent = 'trail-test/1.0 (infected)';
    let answered: Response | undefined;
    const added = await entriesAddedBy(stage(), () =>
      expectRefused(
        stage(),
        async () =>
          (answered = (
            await stage().request(path, {
              as: member,
              redirect: 'manual',
              headers: { 'user-agent': userAgent },
            })
          ).clone()),
        403,
        INFECTED,
      ),
    );
    const [entry] = added;
    expect(added).toEqual([
      {
        ...storedEntry(entry ?? {}, {
          scope: 'DEAL#1#1',
          file: `FILE#${String(files.infected)}`,
          action: 'deal_file.download',
          outcome: 'refused',
          status: 403,
          actor: 'user',
          user_id: member,
          group_id: 1,
          deal_id: 1,
          file_id: files.infected,
          request_id: answered?.headers.get('apigw-requestid'),
          source_ip: '127.0.0.1',
          user_agent: userAgent,
        }),
        entry: `${String(entry?.at).slice(0, 16)}#refused#${String(member)}#${String(
          refusalSlot(String(answered?.headers.get('apigw-requestid'))),
        )}`,
      },
    ]);
  });

  it('without a token → 401, as API Gateway answers it', async () => {
    const { files } = await world();
    await expectRefused(stage(), () => download(downloadUrl(1, 1, files.clean)), 401, UNAUTHORIZED);
  });
});
