/**
 * `npm run admin -- access export`: a group's trail to stdout, as CSV and as JSON Lines, with
 * exactly the expected output, against entries seeded straight into the stage's trail.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAdmin } from '#infra/admin/run-admin.ts';
import { REPOSITORY_ROOT } from '#infra/local/stage/data-folder.ts';
import { cliEnvironment } from '#test/support/cli-environment.ts';
import { seedDeals } from '#test/support/deal-fixtures.ts';
import { seedStageTrail } from '#test/support/stage-trail.ts';
import { useTestStage } from '#test/support/test-stage.ts';
import { entryAt, requestOf } from '#test/support/trail-seed.ts';

const stage = useTestStage();

const GROUP = 71;
const ROOM = 'local:v1:group:71:deal:2';
/** A user agent as a caller may choose it: a formula, commas and quotes. */
const HOSTILE_AGENT = '=HYPERLINK("http://x"), "evil"';

let seeded: Promise<void> | undefined;
const world = () =>
  (seeded ??= (async () => {
    await seedDeals(stage(), {
      groups: [GROUP, GROUP + 1],
      deals: [
        { groupId: GROUP, dealId: 1 },
        { groupId: GROUP, dealId: 2 },
        { groupId: GROUP + 1, dealId: 1 },
      ],
    });
    await seedStageTrail(stage(), [
      entryAt('2026-09-01T08:00:00.000Z', {
        action: 'deal_file.add',
        outcome: 'allowed',
        groupId: GROUP,
        dealId: 1,
        fileId: 801,
        sourceFileId: 700,
        sourceUserId: 5,
      }),
      entryAt('2026-09-01T08:30:00.000Z', {
        action: 'member.add',
        outcome: 'allowed',
        groupId: GROUP,
        memberId: 9,
        role: 'viewer',
      }),
      entryAt(
        '2026-09-01T09:00:00.000Z',
        {
          action: 'deal_file.download',
          outcome: 'allowed',
          groupId: GROUP,
          dealId: 1,
          fileId: 801,
        },
        { userId: 9, requestId: 'req-9', sourceIp: '203.0.113.9', userAgent: HOSTILE_AGENT },
      ),
      entryAt(
        '2026-09-01T09:00:30.000Z',
        {
          action: 'realtime_token.issue',
          outcome: 'refused',
          status: 404,
          groupId: GROUP,
          dealId: 2,
          roomId: ROOM,
        },
        requestOf(10),
      ),
      entryAt('2026-09-01T10:00:00.000Z', {
        action: 'member.change_role',
        outcome: 'allowed',
        groupId: GROUP,
        memberId: 9,
        role: 'editor',
        previousRole: 'viewer',
      }),
      // Another group's: never in group 71's export.
      entryAt('2026-09-01T09:30:00.000Z', {
        action: 'deal_file.delete',
        outcome: 'allowed',
        groupId: GROUP + 1,
        dealId: 1,
        fileId: 802,
      }),
    ]);
  })());

/** The command in this process: what it wrote, chunk by chunk, to stdout and stderr. */
async function exported(line: string) {
  await world();
  const chunks: string[] = [];
  const err: string[] = [];
  const code = await runAdmin(line.split(' '), {
    env: { LOCAL_DATA_DIR: stage().dataDir },
    out: (text) => chunks.push(`${text}\n`),
    write: (chunk) => {
      chunks.push(chunk);
      return Promise.resolve();
    },
    err: (text) => err.push(text),
  });
  return { code, out: chunks.join(''), err: err.join('\n') };
}

const HEADER =
  'at,action,outcome,status,actor,user_id,group_id,deal_id,file_id,room_id,source_file_id,source_user_id,member_id,owner_id,role,previous_role,request_id,source_ip,user_agent';
/**
 * The group's rows, oldest first by the trail's key: the refusal, filed by its minute, before
 * the download of that minute.
 */
const ROWS = {
  add: '2026-09-01T08:00:00.000Z,deal_file.add,allowed,,operator,,71,1,801,,700,5,,,,,,,',
  member: '2026-09-01T08:30:00.000Z,member.add,allowed,,operator,,71,,,,,,9,,viewer,,,,',
  refusal: `2026-09-01T09:00:30.000Z,realtime_token.issue,refused,404,user,10,71,2,,${ROOM},,,,,,,req-10,203.0.113.9,curl/8.5.0`,
  download:
    '2026-09-01T09:00:00.000Z,deal_file.download,allowed,,user,9,71,1,801,,,,,,,,req-9,203.0.113.9,"\'=HYPERLINK(""http://x""), ""evil"""',
  role: '2026-09-01T10:00:00.000Z,member.change_role,allowed,,operator,,71,,,,,,9,,editor,viewer,,,',
};
const csv = (...rows: string[]) => [HEADER, ...rows].map((row) => `${row}\r\n`).join('');

/** An entry's object, its fields in the header's order, null where it gives none. */
const ordered = (fields: Record<string, unknown>) =>
  Object.fromEntries(HEADER.split(',').map((field) => [field, fields[field] ?? null]));
const OBJECTS = [
  ordered({
    at: '2026-09-01T08:00:00.000Z',
    action: 'deal_file.add',
    outcome: 'allowed',
    actor: 'operator',
    group_id: 71,
    deal_id: 1,
    file_id: 801,
    source_file_id: 700,
    source_user_id: 5,
  }),
  ordered({
    at: '2026-09-01T08:30:00.000Z',
    action: 'member.add',
    outcome: 'allowed',
    actor: 'operator',
    group_id: 71,
    member_id: 9,
    role: 'viewer',
  }),
  ordered({
    at: '2026-09-01T09:00:30.000Z',
    action: 'realtime_token.issue',
    outcome: 'refused',
    status: 404,
    actor: 'user',
    user_id: 10,
    group_id: 71,
    deal_id: 2,
    room_id: ROOM,
    request_id: 'req-10',
    source_ip: '203.0.113.9',
    user_agent: 'curl/8.5.0',
  }),
  ordered({
    at: '2026-09-01T09:00:00.000Z',
    action: 'deal_file.download',
    outcome: 'allowed',
    actor: 'user',
    user_id: 9,
    group_id: 71,
    deal_id: 1,
    file_id: 801,
    request_id: 'req-9',
    source_ip: '203.0.113.9',
    user_agent: HOSTILE_AGENT,
  }),
  ordered({
    at: '2026-09-01T10:00:00.000Z',
    action: 'member.change_role',
    outcome: 'allowed',
    actor: 'operator',
    group_id: 71,
    member_id: 9,
    role: 'editor',
    previous_role: 'viewer',
  }),
];

describe('admin access export', () => {
  it("writes a group's every deal and its membership as CSV, oldest first, the columns in the readers' order", async () => {
    const result = await exported('access export --group 71 --format csv');
    expect(result).toEqual({
      code: 0,
      out: csv(ROWS.add, ROWS.member, ROWS.refusal, ROWS.download, ROWS.role),
      err: '',
    });
  });

  it('writes the same as JSON Lines: one object a line, every field in order, null where none', async () => {
    const { code, out } = await exported('access export --group 71 --format jsonl');
    expect(code).toBe(0);
    // Text, not objects: the fields' order is the readers', as the CSV's columns.
    expect(out).toBe(OBJECTS.map((object) => `${JSON.stringify(object)}\n`).join(''));
  });

  it('writes one deal alone, without the membership, and holds a window', async () => {
    expect((await exported('access export --group 71 --deal 2 --format csv')).out).toBe(
      csv(ROWS.refusal),
    );
    expect(
      (
        await exported(
          'access export --group 71 --since 2026-09-01T08:30:00Z --until 2026-09-01T10:30:00+01:00 --format csv',
        )
      ).out,
    ).toBe(csv(ROWS.member, ROWS.refusal, ROWS.download));
    expect((await exported('access export --group 71 --until 2026-09-01 --format csv')).out).toBe(
      csv(),
    );
  });

  it.each([
    [
      '--group 79 --format csv',
      1,
      'admin: access export: group 79 does not exist; nothing was changed',
    ],
    [
      '--group 71 --deal 9 --format csv',
      1,
      'admin: access export: deal 9 is not in group 71; nothing was changed',
    ],
  ])('refuses %s, writing nothing to stdout', async (flags, code, message) => {
    expect(await exported(`access export ${flags}`)).toEqual({ code, out: '', err: message });
  });

  it.each([
    ['--group 71 --format xml', '--format must be one of csv, jsonl, got "xml"'],
    ['--group 71', '--format is required'],
    [
      '--group 71 --format csv --since yesterday',
      '--since must be an ISO 8601 date, or a date and time with its time zone, got "yesterday"',
    ],
  ])('refuses %s as bad usage', async (flags, message) => {
    const { code, out, err } = await exported(`access export ${flags}`);
    expect({ code, out }).toEqual({ code: 2, out: '' });
    expect(err.startsWith(`admin: access export: ${message}\n`)).toBe(true);
  });

  it('streams through the real entry point as a process, nothing else on stdout', async () => {
    await world();
    const { code, stdout, stderr } = await new Promise<{
      code: number;
      stdout: string;
      stderr: string;
    }>((resolve) => {
      execFile(
        process.execPath,
        [
          join(REPOSITORY_ROOT, 'infra/admin/admin.ts'),
          ...'access export --group 71 --format jsonl'.split(' '),
        ],
        {
          cwd: REPOSITORY_ROOT,
          env: cliEnvironment({ HOME: process.env.HOME ?? '', LOCAL_DATA_DIR: stage().dataDir }),
        },
        (error, out, err) => {
          resolve({ code: error === null ? 0 : Number(error.code), stdout: out, stderr: err });
        },
      );
    });
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toBe(OBJECTS.map((object) => `${JSON.stringify(object)}\n`).join(''));
  });
});
