/**
 * `npm run admin -- access seal` and `access verify` on a local stage: the trail's entries
 * seeded through its item module, then sealed, tampered with straight in DynamoDB Local and
 * the local object store, and verified, each finding exactly the one made.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { trailTableNameOf } from '#infra/local/dynamodb/dynamodb-local.ts';
import { runAdmin } from '#infra/admin/run-admin.ts';
import { runInvoke } from '#infra/local/cli/invoke-cli.ts';
import {
  type AccessEntry,
  type Actor,
  type EntryFacts,
  newAccessEntry,
  OPERATOR,
} from '#shared/access-trail/access-entry.ts';
import { accessEntryPut } from '#shared/access-trail/adapters/access-entry-item.ts';
import { runInProcess } from '#test/support/in-process-cli.ts';
import { uploadForm } from '#test/support/multipart.ts';
import { standInClients, useTestStage } from '#test/support/test-stage.ts';

/** A day's retention: the first digest starts a day ago, so a seal reads two days' shards. */
const RETENTION_DAYS = 1;
const stage = useTestStage(() => ({ settings: { ACCESS_TRAIL_RETENTION_DAYS: RETENTION_DAYS } }));
const { dynamodb } = standInClients();
const trail = () => ({
  tableName: trailTableNameOf(stage().tableName),
  retentionDays: RETENTION_DAYS,
});

const USER = 5;
const minutesAgo = (minutes: number) => () => new Date(Date.now() - minutes * 60_000);
const requester = { userId: USER, requestId: 'Req1=', sourceIp: '203.0.113.9', userAgent: 'ua/1' };

/** An entry written as the trail's writers write one, filed this long ago. */
async function seed(
  minutes: number,
  facts: EntryFacts,
  actor: Actor = requester,
): Promise<AccessEntry> {
  const entry = newAccessEntry(facts, actor, { now: minutesAgo(minutes) });
  await dynamodb.send(new PutCommand(accessEntryPut(trail(), entry).Put));
  return entry;
}
const keyOf = (entry: AccessEntry) => {
  const { scope, entry: key } = accessEntryPut(trail(), entry).Put.Item;
  return { scope, entry: key };
};

async function admin(...args: string[]) {
  const { code, out, err } = await stage().admin(args);
  return { code, err, json: (out === '' ? {} : JSON.parse(out)) as Record<string, unknown> };
}
const verify = () => admin('access', 'verify');

const digestKey = (seq: number) => `access-trail/digests/${String(seq).padStart(12, '0')}.json`;
const headDigest = (seq: number) =>
  stage().s3.send(new HeadObjectCommand({ Bucket: stage().bucket, Key: digestKey(seq) }));

const CLEAN = {
  missing_digests: [],
  rewritten_digests: [],
  unreadable_digests: [],
  broken_links: [],
  altered: [],
  removed: [],
  inserted: [],
  clean: true,
};

let download: AccessEntry;
let ownDownload: AccessEntry;
let firstThrough: string;

beforeAll(async () => {
  const deal = { groupId: 7, dealId: 3 };
  download = await seed(30, {
    action: 'deal_file.download',
    outcome: 'allowed',
    ...deal,
    fileId: 11,
  });
  ownDownload = await seed(20, { action: 'user_file.download', outcome: 'allowed', fileId: 12 });
  await seed(
    10,
    { action: 'member.add', outcome: 'allowed', groupId: 7, memberId: 6, role: 'viewer' },
    OPERATOR,
  );
  await seed(9, {
    action: 'deal_file.download',
    outcome: 'refused',
    status: 404,
    ...deal,
    fileId: 13,
  });
});

describe('npm run admin -- access seal / access verify', () => {
  it('is clean on an untouched trail; two seals write two windows, one after the other, neither replaced', async () => {
    // Nothing sealed yet: every entry waits for the first seal.
    expect(await verify()).toEqual({
      code: 0,
      err: '',
      json: expect.objectContaining({ ...CLEAN, digests: 0, not_yet_sealed: 4 }) as unknown,
    });
    const first = await admin('access', 'seal');
    expect(first).toMatchObject({
      code: 0,
      json: { outcome: 'sealed', seq: 1, entries: 4, previous_digest_sha256: null },
    });
    firstThrough = String(first.json.sealed_through);
    const written = await headDigest(1);
    const second = await admin('access', 'seal');
    expect(second).toMatchObject({
      code: 0,
      json: { outcome: 'sealed', seq: 2, entries: 0, sealed_from: firstThrough },
    });
    expect(second.json.previous_digest_sha256).toMatch(/^[0-9a-f]{64}$/);
    // The first digest is as it was written.
    const after = await headDigest(1);
    expect([after.ETag, after.VersionId]).toEqual([written.ETag, written.VersionId]);
    expect(await verify()).toMatchObject({
      code: 0,
      json: { ...CLEAN, digests: 2, entries_verified: 4, not_yet_sealed: 0 },
    });
  });

  it('stays clean after `user erase` of a user with entries: the trail is the fund’s record too', async () => {
    const uploaded = await stage().upload(USER, uploadForm('their deck'));
    expect(uploaded.status).toBe(201);
    const before = await stage().trailItems();
    const erased = await admin('user', 'erase', '--user', String(USER), '--settle-seconds', '0');
    expect(erased).toMatchObject({ code: 0, json: { user_id: USER, files: 1 } });
    expect(await stage().trailItems()).toEqual(before);
    expect(await verify()).toMatchObject({ code: 0, json: { ...CLEAN, entries_verified: 4 } });
  });

  it('reports an edited, a deleted and an inserted entry, exit 3, and is clean once they are undone', async () => {
    const { tableName } = trail();
    const original = (await stage().trailItems()).find(
      (item) => item.entry === keyOf(download).entry,
    );
    await dynamodb.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keyOf(download),
        UpdateExpression: 'SET user_agent = :other',
        ExpressionAttributeValues: { ':other': 'someone else' },
      }),
    );
    await dynamodb.send(new DeleteCommand({ TableName: tableName, Key: keyOf(ownDownload) }));
    // Written as a writer would, in the first digest's window, after it was sealed.
    const inserted = await seed(15, {
      action: 'deal_file.download',
      outcome: 'allowed',
      groupId: 7,
      dealId: 3,
      fileId: 11,
    });
    expect(await verify()).toMatchObject({
      code: 3,
      err: '',
      json: {
        ...CLEAN,
        altered: [{ seq: 1, ...keyOf(download) }],
        removed: [{ seq: 1, ...keyOf(ownDownload) }],
        inserted: [keyOf(inserted)],
        entries_verified: 2,
        clean: false,
      },
    });
    // Undone: the edit put back, the entry restored, the insertion gone.
    await dynamodb.send(new PutCommand({ TableName: tableName, Item: original }));
    await dynamodb.send(new PutCommand(accessEntryPut(trail(), ownDownload).Put));
    await dynamodb.send(new DeleteCommand({ TableName: tableName, Key: keyOf(inserted) }));
    expect(await verify()).toMatchObject({ code: 0, json: { ...CLEAN, entries_verified: 4 } });
  });

  it('reports a missing digest, exit 3, and the entries it sealed as unverifiable', async () => {
    await stage().s3.send(new DeleteObjectCommand({ Bucket: stage().bucket, Key: digestKey(1) }));
    expect(await verify()).toMatchObject({
      code: 3,
      json: {
        ...CLEAN,
        missing_digests: [1],
        digests: 1,
        entries_unverifiable: 4,
        clean: false,
      },
    });
    // Only what was filed since: the second digest's window, which is whole.
    const since = await admin('access', 'verify', '--since', firstThrough);
    expect(since).toMatchObject({ code: 0, json: { ...CLEAN, entries_unverifiable: 0 } });
  });

  it('seals as the deployed sealer does, its handler invoked on the stage (which has no schedule)', async () => {
    const { code, stdout } = await runInProcess(runInvoke, ['SealAccessTrail'], {
      env: { LOCAL_DATA_DIR: stage().dataDir },
      input: '{}',
    });
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ outcome: 'sealed', seq: 3, entries: 0 });
  });

  it('exits 1 when it cannot run, and 2 on a time it cannot read', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'no-stage-'));
    try {
      const err: string[] = [];
      const code = await runAdmin(['access', 'verify'], {
        env: { LOCAL_DATA_DIR: empty },
        out: () => undefined,
        err: (text) => err.push(text),
      });
      expect(code).toBe(1);
      expect(err.join('')).toMatch(/^admin: access verify: .*; nothing was changed$/);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
    const bad = await admin('access', 'verify', '--since', 'yesterday');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain(
      'access verify: --since must be an ISO 8601 date or time (2026-12-01, 2026-12-01T09:30:00Z), got "yesterday"',
    );
  });
});
