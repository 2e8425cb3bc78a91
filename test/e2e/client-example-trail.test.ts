/**
 * The Python client example reads the access trail: a deal's, every page followed and
 * filtered, and a file owner's view; a viewer's refusal raised with its status and body.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { toAccessEntryBody } from '#shared/access-reports/api/access-entry.ts';
import { seedDeals } from '#test/support/deal-fixtures.ts';
import { NOT_FOUND } from '#test/support/fastapi-bodies.ts';
import { uploadForm } from '#test/support/multipart.ts';
import { seedStageTrail } from '#test/support/stage-trail.ts';
import { useTestStage } from '#test/support/test-stage.ts';
import { entryAt, requestOf, timesFrom } from '#test/support/trail-seed.ts';

const run = promisify(execFile);
const stage = useTestStage();

const GROUP = 81;
const EDITOR = 811;
const VIEWER = 812;
const OWNER = 813;

/** Python that prints, as one JSON line, what `call` gives (or a refusal's status and body). */
const python = async (as: number, call: string) => {
  const { stdout } = await run('python3', [
    '-B',
    '-c',
    [
      'import json, sys',
      "sys.path.insert(0, 'examples/python')",
      'from file_service_client import FileServiceClient, FileServiceError',
      'client = FileServiceClient(sys.argv[1], sys.argv[2])',
      'try:',
      `    print(json.dumps(${call}))`,
      'except FileServiceError as refused:',
      '    print(json.dumps({"status": refused.status, "body": refused.body}))',
    ].join('\n'),
    stage().url,
    await stage().token(as),
  ]);
  return JSON.parse(stdout) as unknown;
};

describe('the Python client example reads the access trail', () => {
  it("follows a deal's pages with its filters; a viewer's 404 is raised as sent", async () => {
    await seedDeals(stage(), {
      groups: [GROUP],
      members: [
        { groupId: GROUP, userId: EDITOR, role: 'editor' },
        { groupId: GROUP, userId: VIEWER, role: 'viewer' },
      ],
      deals: [{ groupId: GROUP, dealId: 1 }],
    });
    const entries = timesFrom('2026-10-01T09:00:00.000Z', 5, 60_000).map((at, n) =>
      entryAt(
        at,
        {
          action: n === 2 ? 'realtime_token.issue' : 'deal_file.download',
          outcome: 'allowed',
          groupId: GROUP,
          dealId: 1,
          ...(n === 2 ? { roomId: 'local:v1:group:81:deal:1' } : { fileId: 90 + n }),
        },
        requestOf(n % 2 === 0 ? EDITOR : VIEWER),
      ),
    );
    await seedStageTrail(stage(), entries);
    const newestFirst = entries.toReversed().map(toAccessEntryBody);

    expect(await python(EDITOR, `list(client.deal_access(${String(GROUP)}, 1, limit=2))`)).toEqual(
      newestFirst,
    );
    expect(
      await python(
        EDITOR,
        `list(client.deal_access(${String(GROUP)}, 1, action="deal_file.download", since="2026-10-01T09:01:00Z", limit=1))`,
      ),
    ).toEqual(
      newestFirst.filter((e) => e.action === 'deal_file.download' && e.at >= '2026-10-01T09:01'),
    );
    expect(await python(VIEWER, `list(client.deal_access(${String(GROUP)}, 1))`)).toEqual({
      status: 404,
      body: NOT_FOUND,
    });
  });

  it("reads a file owner's view: their entries and each room's counts", async () => {
    const uploaded = await stage().upload(OWNER, uploadForm('the deck'));
    const { id: fileId } = (await uploaded.json()) as { id: number };
    const own = entryAt(
      '2026-10-02T08:00:00.000Z',
      { action: 'user_file.download', outcome: 'allowed', fileId },
      requestOf(OWNER),
    );
    await seedStageTrail(stage(), [
      own,
      entryAt('2026-10-02T09:00:00.000Z', {
        action: 'deal_file.add',
        outcome: 'allowed',
        groupId: GROUP,
        dealId: 1,
        fileId: 9_100_001,
        sourceFileId: fileId,
        sourceUserId: OWNER,
      }),
      entryAt(
        '2026-10-02T10:00:00.000Z',
        {
          action: 'deal_file.download',
          outcome: 'allowed',
          groupId: GROUP,
          dealId: 1,
          fileId: 9_100_001,
        },
        requestOf(EDITOR),
      ),
    ]);
    expect(await python(OWNER, `client.file_access(${String(fileId)})`)).toEqual({
      entries: [toAccessEntryBody(own)],
      deal_rooms: [
        {
          group_id: GROUP,
          deal_id: 1,
          file_id: 9_100_001,
          downloads: 1,
          members: 1,
          first_at: '2026-10-02T10:00:00.000Z',
          last_at: '2026-10-02T10:00:00.000Z',
        },
      ],
    });
  });
});
