import { execFile } from 'node:child_process';
import { mkdtemp, rm, truncate, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '#infra/admin/run-admin.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#infra/local/stage/stand-ins.ts';
import { REPOSITORY_ROOT } from '#infra/local/stage/data-folder.ts';
import { stageRecordOf } from '#infra/local/stage/stage-lock.ts';
import { dealFileObjectKey, userFileObjectKey } from '#shared/storage/keys.ts';
import { toUserFileItem } from '#shared/storage/file-items.ts';
import { useTestStage } from '#test/support/test-stage.ts';
import { eventually } from '#test/support/eventually.ts';
import {
  type CloudFormationStandIn,
  startCloudFormationStandIn,
} from '#test/support/cloudformation-stand-in.ts';
import { cliEnvironment } from '#test/support/cli-environment.ts';

const stage = useTestStage();

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'admin-cli-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** A command line as an operator types it: words, or "quoted words". */
const words = (line: string): string[] =>
  Array.from(line.matchAll(/"([^"]*)"|(\S+)/g), (m) => m[1] ?? m[2] ?? '');

/** Runs one command in this process, on the test stage found by its data folder. */
async function admin(line: string) {
  return stage().admin(words(line));
}

/** Runs a command that must succeed; its JSON result. */
async function ok(line: string): Promise<unknown> {
  const result = await admin(line);
  expect(result.err).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.out);
}

/** Runs a command that must be refused with this exit code and message, changing nothing. */
async function refused(code: 1 | 2, line: string, message: string | RegExp) {
  const before = await stage().stored();
  const result = await admin(line);
  expect(result.code).toBe(code);
  expect(result.out).toBe('');
  const firstLine = result.err.split('\n')[0] ?? '';
  if (typeof message === 'string') expect(firstLine).toBe(message);
  else expect(firstLine).toMatch(message);
  expect(await stage().stored()).toEqual(before);
}

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) as string;

describe('admin: group add', () => {
  it('creates a group and prints it', async () => {
    expect(await ok('group add --group 7 --name "Fund VII"')).toEqual({
      id: 7,
      name: 'Fund VII',
      created_at: ISO,
    });
    expect((await stage().items()).filter((i) => i.PK === 'GROUP#7')).toEqual([
      { PK: 'GROUP#7', SK: 'GROUP#7', entity: 'Group', id: 7, name: 'Fund VII', created_at: ISO },
    ]);
  });

  it('refuses a group that exists', async () => {
    await ok('group add --group 8 --name Eight');
    await refused(
      1,
      'group add --group 8 --name Other',
      'admin: group add: group 8 already exists; nothing was changed',
    );
  });

  const positive = (value: string) =>
    `admin: group add: --group must be a positive integer, got "${value}"`;

  it.each([
    ['--name x', 'admin: group add: --group is required'],
    ['--group 9', 'admin: group add: --name is required'],
    ['--group 0 --name x', positive('0')],
    ['--group 1.5 --name x', positive('1.5')],
    ['--group seven --name x', positive('seven')],
    ['--group 99999999999999999999 --name x', positive('99999999999999999999')],
    ['--group=-3 --name x', positive('-3')],
    [
      '--group -3 --name x',
      'admin: group add: --group needs a value (one that starts with "-" is written --group=-3)',
    ],
    ['--group 9 --name "  "', 'admin: group add: --name must not be empty'],
    [
      `--group 9 --name ${'n'.repeat(256)}`,
      'admin: group add: --name must be at most 255 characters',
    ],
    ['--group 9 --name x --role editor', 'admin: group add: unknown option --role'],
    ['--group 9 --name x --bogus 1', 'admin: group add: unknown option --bogus'],
  ])('group add %s → exit 2, nothing changed', async (args, message) => {
    await refused(2, `group add ${args}`, message);
  });
});

describe('admin: member add / member remove', () => {
  beforeAll(async () => {
    await ok('group add --group 20 --name Twenty');
  });

  it('adds a member, then changes the role of one who is', async () => {
    expect(await ok('member add --group 20 --user 42 --role viewer')).toEqual({
      group_id: 20,
      user_id: 42,
      role: 'viewer',
      previous_role: null,
    });
    expect(await ok('member add --group 20 --user 42 --role editor')).toEqual({
      group_id: 20,
      user_id: 42,
      role: 'editor',
      previous_role: 'viewer',
    });
    expect((await stage().items()).filter((i) => i.SK === 'MEMBER#42')).toEqual([
      {
        PK: 'GROUP#20',
        SK: 'MEMBER#42',
        entity: 'Member',
        group_id: 20,
        user_id: 42,
        role: 'editor',
      },
    ]);
  });

  it('removes a member; removing again is refused', async () => {
    await ok('member add --group 20 --user 43 --role editor');
    expect(await ok('member remove --group 20 --user 43')).toEqual({
      group_id: 20,
      user_id: 43,
      role: 'editor',
      removed: true,
    });
    await refused(
      1,
      'member remove --group 20 --user 43',
      'admin: member remove: user 43 is not a member of group 20; nothing was changed',
    );
  });

  it('refuses a member of a group that does not exist', async () => {
    await refused(
      1,
      'member add --group 21 --user 42 --role viewer',
      'admin: member add: group 21 does not exist; nothing was changed',
    );
    await refused(
      1,
      'member remove --group 21 --user 42',
      'admin: member remove: user 42 is not a member of group 21; nothing was changed',
    );
  });

  it.each([
    [
      'member add --group 20 --user 42 --role owner',
      'admin: member add: --role must be one of viewer, editor, got "owner"',
    ],
    ['member add --group 20 --user 42', 'admin: member add: --role is required'],
    ['member add --group 20 --role viewer', 'admin: member add: --user is required'],
    [
      'member add --group 20 --user x --role viewer',
      'admin: member add: --user must be a positive integer, got "x"',
    ],
    [
      'member remove --group 20 --user 42 --role viewer',
      'admin: member remove: unknown option --role',
    ],
  ])('%s → exit 2, nothing changed', async (line, message) => {
    await refused(2, line, message);
  });
});

describe('admin: deal add', () => {
  beforeAll(async () => {
    await ok('group add --group 30 --name Thirty');
  });

  it('adds a deal to a group', async () => {
    expect(await ok('deal add --group 30 --deal 3 --name "Acme Series A"')).toEqual({
      group_id: 30,
      id: 3,
      name: 'Acme Series A',
      created_at: ISO,
    });
  });

  it('refuses a deal that exists in the group, and a group that does not exist', async () => {
    await ok('deal add --group 30 --deal 4 --name Four');
    await refused(
      1,
      'deal add --group 30 --deal 4 --name Again',
      'admin: deal add: deal 4 already exists in group 30; nothing was changed',
    );
    await refused(
      1,
      'deal add --group 31 --deal 4 --name Four',
      'admin: deal add: group 31 does not exist; nothing was changed',
    );
  });

  it('the same deal id in another group is another deal', async () => {
    await ok('group add --group 32 --name Thirty-two');
    await ok('deal add --group 32 --deal 4 --name "Four elsewhere"');
  });

  it.each([
    ['deal add --group 30 --name x', 'admin: deal add: --deal is required'],
    [
      'deal add --group 30 --deal d --name x',
      'admin: deal add: --deal must be a positive integer, got "d"',
    ],
  ])('%s → exit 2, nothing changed', async (line, message) => {
    await refused(2, line, message);
  });
});

describe('admin: deal-file add and list', () => {
  beforeAll(async () => {
    await ok('group add --group 40 --name Forty');
    await ok('deal add --group 40 --deal 1 --name One');
  });

  // The bucket lets no one read an object before its malware scan clears it.
  const objectText = (key: string) =>
    eventually(async () => {
      try {
        const { Body } = await stage().s3.send(
          new GetObjectCommand({ Bucket: stage().bucket, Key: key }),
        );
        return (await Body?.transformToString()) ?? '';
      } catch (error) {
        if ((error as { name?: string }).name === 'AccessDenied') return undefined;
        throw error;
      }
    });

  const userFile = async (id: number, name: string, content?: string) => {
    await stage().put([
      toUserFileItem({
        id,
        userId: 42,
        name,
        type: 'financials',
        createdAt: '2026-06-01T00:00:00.000Z',
        updatedAt: null,
        isArchived: false,
        filesize: content?.length ?? 3,
        location: null,
        // Scanned and found clean, as a user's file is before it may be copied to a deal.
        scan: { status: 'scanned', result: 'NO_THREATS_FOUND', at: '2026-06-01T00:00:01.000Z' },
      }),
    ]);
    if (content === undefined) return;
    await stage().s3.send(
      new PutObjectCommand({
        Bucket: stage().bucket,
        Key: userFileObjectKey(42, id),
        Body: content,
      }),
    );
  };

  it('adds a file from a local path: bytes under the deal’s prefix, then the record', async () => {
    const path = join(scratch, 'deck.pdf');
    await writeFile(path, '%PDF-1.7 deck');
    const file = (await ok(`deal-file add --group 40 --deal 1 --type deck --path ${path}`)) as {
      id: number;
    };
    const key = dealFileObjectKey(40, 1, file.id);
    expect(file).toEqual({
      group_id: 40,
      deal_id: 1,
      id: expect.any(Number) as number,
      name: 'deck.pdf',
      type: 'deck',
      created_at: ISO,
      updated_at: null,
      is_archived: false,
      filesize: 13,
      location: `s3://${stage().bucket}/${key}`,
    });
    expect(await objectText(key)).toBe('%PDF-1.7 deck');
    expect(await ok('deal-file list --group 40 --deal 1')).toEqual([file]);
  });

  it('--name overrides the file’s base name; no --type leaves it null', async () => {
    const path = join(scratch, 'model.xlsx');
    await writeFile(path, 'cells');
    expect(
      await ok(`deal-file add --group 40 --deal 1 --name "Q3 model – final.xlsx" --path ${path}`),
    ).toMatchObject({ name: 'Q3 model – final.xlsx', type: null, filesize: 5 });
  });

  it('copies a user’s uploaded file in S3, with its name and type unless given', async () => {
    await userFile(4012, 'financials.xlsx', 'user data');
    const copied = (await ok(
      'deal-file add --group 40 --deal 1 --from-user-file 4012 --user 42',
    )) as { id: number };
    expect(copied).toMatchObject({
      name: 'financials.xlsx',
      type: 'financials',
      filesize: 9,
      group_id: 40,
      deal_id: 1,
    });
    expect(copied.id).not.toBe(4012);
    expect(await objectText(dealFileObjectKey(40, 1, copied.id))).toBe('user data');
    expect(await objectText(userFileObjectKey(42, 4012))).toBe('user data');
    expect(
      await ok(
        'deal-file add --group 40 --deal 1 --from-user-file 4012 --user 42 --name renamed.xlsx --type raw_data',
      ),
    ).toMatchObject({ name: 'renamed.xlsx', type: 'raw_data' });
  });

  it('lists a deal’s files newest first', async () => {
    const listed = (await ok('deal-file list --group 40 --deal 1')) as { created_at: string }[];
    expect(listed.length).toBeGreaterThanOrEqual(3);
    const order = listed.map((f) => f.created_at);
    expect(order).toEqual([...order].sort().reverse());
  });

  it('refuses a missing deal, a missing user file, another user’s file, and bytes that are gone', async () => {
    const path = join(scratch, 'a.pdf');
    await writeFile(path, 'a');
    await userFile(4013, 'lost.pdf');
    const cases = [
      [`--group 40 --deal 9 --path ${path}`, 'deal 9 does not exist in group 40'],
      [`--group 41 --deal 1 --path ${path}`, 'deal 1 does not exist in group 41'],
      ['--group 40 --deal 1 --from-user-file 4999 --user 42', 'user 42 has no file 4999'],
      ['--group 40 --deal 1 --from-user-file 4012 --user 43', 'user 43 has no file 4012'],
      [
        '--group 40 --deal 1 --from-user-file 4013 --user 42',
        "user 42's file 4013 has a record but no bytes in the bucket",
      ],
    ];
    for (const [args, reason] of cases) {
      await refused(
        1,
        `deal-file add ${args ?? ''}`,
        `admin: deal-file add: ${reason ?? ''}; nothing was changed`,
      );
    }
  });

  it('refuses a path that is missing, a folder, empty, or over 50 MiB', async () => {
    const empty = join(scratch, 'empty.pdf');
    await writeFile(empty, '');
    const huge = join(scratch, 'huge.bin');
    await writeFile(huge, '');
    await truncate(huge, 52_428_801);
    const folder = join(scratch, 'folder');
    await mkdir(folder, { recursive: true });
    const missing = join(scratch, 'missing.pdf');
    const add = 'deal-file add --group 40 --deal 1 --path';
    const refusal = (reason: string) => `admin: deal-file add: ${reason}; nothing was changed`;
    await refused(
      1,
      `${add} ${missing}`,
      new RegExp(`^admin: deal-file add: cannot read --path ${missing}: ENOENT`),
    );
    await refused(1, `${add} ${folder}`, refusal(`--path ${folder} is not a file`));
    await refused(1, `${add} ${empty}`, refusal(`--path ${empty} is empty`));
    await refused(
      1,
      `${add} ${huge}`,
      refusal(
        `--path ${huge} is 52428801 bytes; a deal file may be at most 52428800 bytes (50 MiB)`,
      ),
    );
  });

  const exactlyOne =
    'admin: deal-file add: give exactly one of --path <file> and --from-user-file <id> --user <id>';

  it.each([
    ['', exactlyOne],
    ['--path x --from-user-file 1 --user 2', exactlyOne],
    [
      '--from-user-file 1',
      'admin: deal-file add: --from-user-file needs --user, the owner of the file',
    ],
    [
      '--path x --user 2',
      'admin: deal-file add: --user goes with --from-user-file, not with --path',
    ],
    [
      '--path x --type pdf',
      'admin: deal-file add: --type must be one of deck, financials, raw_data, snapshot, full, mini, nano, other, got "pdf"',
    ],
  ])('deal-file add %s → exit 2, nothing changed', async (args, message) => {
    await refused(2, `deal-file add --group 40 --deal 1 ${args}`, message);
  });

  it('deal-file list refuses a deal that does not exist', async () => {
    await refused(
      1,
      'deal-file list --group 40 --deal 2',
      'admin: deal-file list: deal 2 does not exist in group 40; nothing was changed',
    );
  });
});

describe('admin: realtime-key rotate', () => {
  it('adds a key that signs at once on the local stage, and keeps the previous one', async () => {
    const rotated = (await ok('realtime-key rotate')) as {
      kid: string;
      activates_at: string;
      keys: { kid: string; activates_at: string }[];
    };
    expect(rotated.keys.length).toBeGreaterThanOrEqual(2);
    expect(rotated.keys.at(-1)).toEqual({ kid: rotated.kid, activates_at: rotated.activates_at });
    expect(Date.parse(rotated.activates_at)).toBeLessThanOrEqual(Date.now());
    const later = (await ok('realtime-key rotate --activate-in 600')) as typeof rotated;
    expect(Date.parse(later.activates_at) - Date.now()).toBeGreaterThan(590_000);
    expect(later.keys.map((k) => k.kid).slice(0, -1)).toEqual(rotated.keys.map((k) => k.kid));
  });

  it.each([
    [
      '--activate-in soon',
      'admin: realtime-key rotate: --activate-in must be whole seconds, got "soon"',
    ],
    [
      '--activate-in -5',
      'admin: realtime-key rotate: --activate-in needs a value (one that starts with "-" is written --activate-in=-5)',
    ],
    ['--group 1', 'admin: realtime-key rotate: unknown option --group'],
  ])('realtime-key rotate %s → exit 2', async (args, message) => {
    await refused(2, `realtime-key rotate ${args}`, message);
  });
});

describe('admin: usage and stages', () => {
  it.each([
    ['', 'admin: name a command'],
    ['group', 'admin: unknown command "group"'],
    ['group remove --group 1', 'admin: unknown command "group remove"'],
    ['reconcile now', 'admin: unexpected argument "now" (quote a value that has spaces)'],
    [
      'group add --group 1 --name x --stage staging',
      'admin: --stage must be one of production, development, local, got "staging"',
    ],
    ['group add --group 1 --group 2 --name x', 'admin: --group is given more than once'],
    [
      'group add --group 1 --name Fund VII',
      'admin: unexpected argument "VII" (quote a value that has spaces)',
    ],
  ])('"%s" → exit 2', async (line, message) => {
    await refused(2, line, message);
  });

  it('--help prints the usage on stdout and exits 0', async () => {
    const result = await admin('--help');
    expect(result.code).toBe(0);
    expect(result.out).toContain('  deal-file add        Attach a file to a deal');
    expect(result.out).toContain('`<command> --help` shows a command');
  });

  it('asks for a restart when the running stage is from before the record named its table', async () => {
    const folder = await mkdtemp(join(scratch, 'old-'));
    const older = Object.fromEntries(
      Object.entries(stageRecordOf(stage())).filter(([k]) => !['tableName', 'bucket'].includes(k)),
    );
    await writeFile(join(folder, 'local-stage.json'), JSON.stringify(older));
    const err: string[] = [];
    const code = await runAdmin(words('deal-file list --group 1 --deal 1'), {
      env: { LOCAL_DATA_DIR: folder },
      out: () => undefined,
      err: (text) => err.push(text),
    });
    expect(code).toBe(1);
    expect(err).toEqual([
      `admin: deal-file list: the local stage on ${folder} was started by an older version: restart \`npm start\`; nothing was changed`,
    ]);
  });

  it('with no local stage running, says how to start one', async () => {
    const err: string[] = [];
    const code = await runAdmin(words('group add --group 1 --name x'), {
      env: { LOCAL_DATA_DIR: scratch },
      out: () => undefined,
      err: (text) => err.push(text),
    });
    expect(code).toBe(1);
    expect(err).toEqual([
      `admin: group add: no local stage runs on ${scratch}; start one with npm start, or set LOCAL_DATA_DIR to the folder of the one you started (or name a deployed stage with --stage development|production); nothing was changed`,
    ]);
  });
});

describe('admin and HTTP together: the walk-through in docs/operator-cli.md', () => {
  const PUT = { method: 'PUT', headers: { 'content-type': 'application/json' } } as const;

  it('from an empty deal to a successful PUT; role changes take effect on the next request', async () => {
    await ok('group add --group 70 --name "Fund VII"');
    await ok('member add --group 70 --user 742 --role editor');
    await ok('member add --group 70 --user 743 --role viewer');
    await ok('deal add --group 70 --deal 3 --name "Acme Series A"');
    const path = join(scratch, 'walk-deck.pdf');
    await writeFile(path, 'a demo deck');
    const { id } = (await ok(`deal-file add --group 70 --deal 3 --type deck --path ${path}`)) as {
      id: number;
    };
    const url = `/api/v1/group/70/deal/3/file/${id}`;
    const asEditor = await stage().request(url, {
      ...PUT,
      as: 742,
      body: '{"type": "financials"}',
    });
    expect(asEditor.status).toBe(200);
    expect(await asEditor.json()).toMatchObject({ id, deal_id: 3, type: 'financials' });
    const asViewer = await stage().request(url, { ...PUT, as: 743, body: '{"type": "deck"}' });
    expect(asViewer.status).toBe(403);
    const outsider = await stage().request('/api/v1/group/70/deal/3/file', { as: 744 });
    expect(outsider.status).toBe(404);

    await ok('member add --group 70 --user 742 --role viewer');
    const demoted = await stage().request(url, { ...PUT, as: 742, body: '{"type": "deck"}' });
    expect(demoted.status).toBe(403);
    await ok('member remove --group 70 --user 742');
    const removed = await stage().request(url, { ...PUT, as: 742, body: '{"type": "deck"}' });
    expect(removed.status).toBe(404);
    expect(await ok('deal-file list --group 70 --deal 3')).toMatchObject([
      { id, type: 'financials' },
    ]);
  });
});

/** Runs the real entry point in a process of its own, as an operator would. */
function spawnAdmin(line: string, env: Record<string, string>, viaNpm = false) {
  const args = words(line);
  const [file, argv] = viaNpm
    ? ['npm', ['run', '--silent', 'admin', '--', ...args]]
    : [process.execPath, [join(REPOSITORY_ROOT, 'infra/admin/admin.ts'), ...args]];
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      file,
      argv,
      {
        cwd: REPOSITORY_ROOT,
        env: cliEnvironment({ HOME: process.env.HOME ?? '', ...env }),
      },
      (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr });
      },
    );
  });
}

describe('admin, as a process', () => {
  it('`npm run --silent admin --` prints the JSON result alone on stdout and exits 0', async () => {
    const result = await spawnAdmin(
      'group add --group 50 --name Fifty',
      { LOCAL_DATA_DIR: stage().dataDir },
      true,
    );
    expect(result.code).toBe(0);
    expect(result.stderr.replace(/^npm warn .*\n/gm, '')).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({ id: 50, name: 'Fifty', created_at: ISO });
  });

  it('exits 1 on a refusal and 2 on bad usage, with nothing on stdout', async () => {
    const env = { LOCAL_DATA_DIR: stage().dataDir };
    const refusal = await spawnAdmin('group add --group 50 --name Again', env);
    expect(refusal).toEqual({
      code: 1,
      stdout: '',
      stderr: 'admin: group add: group 50 already exists; nothing was changed\n',
    });
    const usage = await spawnAdmin('deal add', env);
    expect(usage.code).toBe(2);
    expect(usage.stdout).toBe('');
    expect(usage.stderr).toMatch(
      /^admin: deal add: --group is required; --deal is required; --name is required\n/,
    );
  });
});

describe('admin --stage development: a deployed stage found by its stack outputs', () => {
  let cloudFormation: CloudFormationStandIn;

  beforeAll(async () => {
    cloudFormation = await startCloudFormationStandIn();
  });
  afterAll(async () => {
    await cloudFormation.close();
  });

  const awsEnv = () => ({
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_CLOUDFORMATION: cloudFormation.endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: stage().dynamodbEndpoint,
  });

  it('reads the table from the stack FileService-development and works on it', async () => {
    cloudFormation.outputs = {
      ApiUrl: 'https://api.example',
      TableName: stage().tableName,
      BucketName: stage().bucket,
    };
    const added = await spawnAdmin(
      '--stage development group add --group 60 --name Sixty',
      awsEnv(),
    );
    expect(added.stderr).toBe('');
    expect(JSON.parse(added.stdout)).toEqual({ id: 60, name: 'Sixty', created_at: ISO });
    expect(cloudFormation.requests.at(-1)).toContain('StackName=FileService-development');
    expect((await stage().items()).some((i) => i.PK === 'GROUP#60')).toBe(true);
  });

  it('says so when the stack is not deployed, or lacks the outputs', async () => {
    cloudFormation.outputs = undefined;
    const before = await stage().stored();
    expect(await spawnAdmin('group add --group 61 --name x --stage development', awsEnv())).toEqual(
      {
        code: 1,
        stdout: '',
        stderr:
          'admin: group add: stack FileService-development does not exist in this account and region: deploy it first (npm run deploy -- -c stage=development); nothing was changed\n',
      },
    );
    cloudFormation.outputs = { ApiUrl: 'https://api.example' };
    expect(await spawnAdmin('group add --group 61 --name x --stage development', awsEnv())).toEqual(
      {
        code: 1,
        stdout: '',
        stderr:
          'admin: group add: stack FileService-development has no TableName and BucketName outputs: deploy this version of the service first; nothing was changed\n',
      },
    );
    expect(await stage().stored()).toEqual(before);
  });
});
