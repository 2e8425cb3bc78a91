import { createHash } from 'node:crypto';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { EICAR_TEST_STRING } from '#infra/local/object-store/local-malware-scanner.ts';
import { dealFileObjectKey, usageKey, userFileObjectKey } from '#shared/storage/keys.ts';
import { toDealFileItem } from '#shared/storage/file-items.ts';
import { toDirectUploadItem } from '#shared/direct-uploads/adapters/dynamo-direct-upload-repository.ts';
import { toNotificationItem } from '#shared/notifications/adapters/dynamo-notification-repository.ts';
import { toUserFileItem } from '#shared/storage/file-items.ts';
import type { UserFileBody } from '#test/support/fastapi-bodies.ts';
import { uploadForm } from '#test/support/multipart.ts';
import { standInClients, useTestStage } from '#test/support/test-stage.ts';

const stage = useTestStage();

/** Its JSON; the exit code says whether it found anything: 0 clean, 3 not. */
async function reconcile(...flags: string[]) {
  const { code, out, err } = await stage().admin(['reconcile', ...flags]);
  expect(err).toBe('');
  const found = JSON.parse(out) as Record<string, unknown>;
  expect(code).toBe(found.clean === true ? 0 : 3);
  return found;
}

const putObject = (key: string, body: string | Buffer = 'bytes') =>
  stage().s3.send(new PutObjectCommand({ Bucket: stage().bucket, Key: key, Body: body }));

const sha256 = (bytes: string | Buffer) => createHash('sha256').update(bytes).digest('base64');

/** Uploads a file through the API, as this user, and waits for its scan's verdict: its id. */
async function upload(as: number, content: string): Promise<number> {
  const response = await stage().upload(as, uploadForm(content));
  expect(response.status).toBe(201);
  const { id } = (await response.json()) as UserFileBody;
  expect((await stage().download(as, id)).status).toBe(302);
  return id;
}

/** What reconcile read: every item, and every object where file bytes live. */
async function everything() {
  return {
    items: (await stage().items()).length,
    objects: (await stage().objectKeys()).filter((key) => /^(users|groups|uploads)\//.test(key))
      .length,
  };
}

const usage = (files: number, bytes: number, reserved = { files: 0, bytes: 0 }) => ({
  files: { used: files, reserved: reserved.files },
  bytes: { used: bytes, reserved: reserved.bytes },
});

const NOTHING_WRONG = {
  objects_without_records: [],
  records_without_objects: [],
  stale_notifications: [],
  // The stage scans: a record waiting for a verdict its object already carries is listed.
  verdicts_unrecorded: [],
  verdicts_unreadable: [],
  uploads_in_flight: 0,
  objects_settling: 0,
};

const HOUR_AGO = new Date(Date.now() - 3_600_000).toISOString();
const userFile = (userId: number, id: number) => ({
  id,
  userId,
  name: `f${String(id)}.pdf`,
  type: 'deck' as const,
  createdAt: HOUR_AGO,
  updatedAt: null,
  isArchived: false,
  filesize: 5,
  location: userFileObjectKey(userId, id),
});
const notification = (
  id: string,
  status: 'queued' | 'sending' | 'sent',
  leaseUntil: string | null,
) => ({
  userId: 3,
  notificationId: id,
  files: [],
  fundName: null,
  message: null,
  status,
  createdAt: HOUR_AGO,
  updatedAt: HOUR_AGO,
  sentAt: null,
  attempts: 1,
  roundAttempts: 1,
  lastError: null,
  notBefore: null,
  leaseUntil,
  version: 1,
});

describe('npm run admin -- reconcile', () => {
  it('finds nothing on a stage where table and bucket agree', async () => {
    await stage().put([toUserFileItem(userFile(1, 1))]);
    await putObject(userFileObjectKey(1, 1));
    expect(await reconcile()).toEqual({
      clean: true,
      objects_without_records: [],
      records_without_objects: [],
      stale_notifications: [],
      // A user whose usage was never counted (their file predates the ledger) is counted: no
      // drift, so still clean.
      usage_repaired: [{ user_id: 1, before: null, after: usage(1, 5) }],
      verdicts_unrecorded: [],
      verdicts_unreadable: [],
      uploads_in_flight: 0,
      objects_settling: 0,
      checked: { items: 1, objects: 1, users: 1 },
    });
    expect(await reconcile()).toEqual({
      clean: true,
      ...NOTHING_WRONG,
      usage_repaired: [],
      checked: { items: 2, objects: 1, users: 1 },
    });
  });

  it("repairs a user's usage that drifted from their files, and says so", async () => {
    const sizes = ['first file', 'the second file'].map((content) => content.length);
    await upload(40, 'first file');
    await upload(40, 'the second file');
    const bytes = (sizes[0] ?? 0) + (sizes[1] ?? 0);
    // Drift: the usage says five files more than the user holds.
    const { dynamodb } = standInClients();
    await dynamodb.send(
      new UpdateCommand({
        TableName: stage().tableName,
        Key: usageKey(40),
        UpdateExpression: 'ADD held_files :five',
        ExpressionAttributeValues: { ':five': 5 },
      }),
    );
    const read = await everything();
    expect(await reconcile('--settle-seconds', '0')).toEqual({
      clean: false,
      ...NOTHING_WRONG,
      usage_repaired: [{ user_id: 40, before: usage(7, bytes), after: usage(2, bytes) }],
      checked: { ...read, users: 2 },
    });
    const { Item } = await dynamodb.send(
      new GetCommand({ TableName: stage().tableName, Key: usageKey(40), ConsistentRead: true }),
    );
    expect(Item).toMatchObject({ held_files: 2, held_bytes: bytes, reserved_files: 0 });
    // Repaired: nothing left to repair, and nothing wrong.
    expect(await reconcile('--settle-seconds', '0')).toEqual({
      clean: true,
      ...NOTHING_WRONG,
      usage_repaired: [],
      checked: { ...read, users: 2 },
    });
  });

  it('with --verify-digests, reads every file and finds the one whose bytes changed', async () => {
    await upload(50, 'bytes that stay');
    const original = 'bytes that will change';
    const changed = await upload(50, original);
    // Behind the service's back: the object's bytes are replaced in the store.
    const tampered = 'other bytes';
    await putObject(userFileObjectKey(50, changed), tampered);
    const read = await everything();
    expect(await reconcile('--settle-seconds', '0', '--verify-digests')).toEqual({
      clean: false,
      ...NOTHING_WRONG,
      usage_repaired: [],
      digest_mismatches: [
        {
          pk: 'USER#50',
          sk: `FILE#${String(changed)}`,
          object_key: userFileObjectKey(50, changed),
          recorded: sha256(original),
          actual: sha256(tampered),
        },
      ],
      digests_unreadable: [],
      // User 40's two, and user 50's other; user 1's file was stored with no digest.
      digests_verified: 3,
      digests_unrecorded: 1,
      checked: { ...read, users: 3 },
    });
    // Without the flag no object is read, and nothing is said of digests.
    expect(await reconcile('--settle-seconds', '0')).toEqual({
      clean: true,
      ...NOTHING_WRONG,
      usage_repaired: [],
      checked: { ...read, users: 3 },
    });
    // The bytes put back: nothing wrong.
    await putObject(userFileObjectKey(50, changed), original);
    expect(await reconcile('--settle-seconds', '0', '--verify-digests')).toMatchObject({
      clean: true,
      digest_mismatches: [],
      digests_verified: 4,
      digests_unrecorded: 1,
    });
  });

  it('lists objects without records, records without objects, and stuck notifications', async () => {
    const before = await stage().stored();
    // An object no record names (a user's, and a deal's); and one elsewhere, not ours to judge.
    await putObject(userFileObjectKey(2, 20));
    await putObject('exports/report.csv');
    await putObject(dealFileObjectKey(5, 6, 30));
    // A record whose object is gone.
    await stage().put([toUserFileItem(userFile(2, 21))]);
    await stage().put([
      toDealFileItem({
        ...userFile(0, 31),
        groupId: 5,
        dealId: 6,
        location: dealFileObjectKey(5, 6, 31),
      }),
    ]);
    // A direct upload signed and not yet sent: in flight. (Its object would start the
    // finalizer, which completes it; the unit test covers an object with a pending record.)
    await stage().put([
      toDirectUploadItem({
        id: 22,
        userId: 2,
        name: 'big.xlsx',
        type: 'financials',
        contentType: 'application/octet-stream',
        declaredSize: 5,
        createdAt: new Date().toISOString(),
        expiresAt: new Date(Date.now() + 900_000).toISOString(),
        status: 'pending',
        reserved: true,
      }),
    ]);
    // Notifications: one queued an hour ago, one whose worker died, one sent, and one waiting
    // out a webhook's Retry-After.
    await stage().put([
      toNotificationItem(notification('aaaaaaaa-0000-4000-8000-000000000001', 'queued', null)),
      toNotificationItem(notification('aaaaaaaa-0000-4000-8000-000000000002', 'sending', HOUR_AGO)),
      toNotificationItem(notification('aaaaaaaa-0000-4000-8000-000000000003', 'sent', null)),
      toNotificationItem({
        ...notification('aaaaaaaa-0000-4000-8000-000000000004', 'queued', null),
        notBefore: new Date(Date.now() + 600_000).toISOString(),
      }),
    ]);
    const read = await everything();
    const found = await reconcile('--settle-seconds', '0');
    expect(found).toEqual({
      clean: false,
      objects_without_records: ['groups/5/deals/6/files/30', 'users/2/files/20'],
      records_without_objects: [
        { pk: 'GROUP#5#DEAL#6', sk: 'FILE#31', object_key: 'groups/5/deals/6/files/31' },
        { pk: 'USER#2', sk: 'FILE#21', object_key: 'users/2/files/21' },
      ],
      stale_notifications: [
        {
          user_id: 3,
          notification_id: 'aaaaaaaa-0000-4000-8000-000000000001',
          status: 'queued',
          updated_at: HOUR_AGO,
        },
        {
          user_id: 3,
          notification_id: 'aaaaaaaa-0000-4000-8000-000000000002',
          status: 'sending',
          updated_at: HOUR_AGO,
        },
      ],
      // User 2's file and pending upload, never counted: counted now.
      usage_repaired: [{ user_id: 2, before: null, after: usage(1, 5, { files: 1, bytes: 5 }) }],
      verdicts_unrecorded: [],
      verdicts_unreadable: [],
      uploads_in_flight: 1,
      objects_settling: 0,
      checked: { ...read, users: 4 },
    });
    // With the default 15 minutes to settle, the fresh orphans are counted, not judged.
    expect(await reconcile()).toMatchObject({
      objects_without_records: [],
      objects_settling: 2,
    });
    // It reads, and writes only the usage it counted.
    expect((await stage().stored()).items.length).toBe(before.items.length + 8);
    expect((await stage().items()).filter((item) => item.SK === 'USAGE').map((i) => i.PK)).toEqual(
      expect.arrayContaining(['USER#2']),
    );
    expect((await stage().stored()).objects).toContain('exports/report.csv');
  });

  it('refuses a settle time that is not whole seconds', async () => {
    const { code, out, err } = await stage().admin(['reconcile', '--settle-seconds', 'soon']);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err.split('\n')[0]).toBe(
      'admin: reconcile: --settle-seconds must be whole seconds, got "soon"',
    );
  });
});

describe('npm run admin -- reconcile --verify-digests, on files the scan holds', () => {
  /** User 91's scans wait until the stage stops: its file stays pending. */
  const scanning = useTestStage(() => ({
    scanner: {
      gate: (key) =>
        key.startsWith('users/91/') ? new Promise<void>(() => undefined) : Promise.resolve(),
    },
  }));

  async function uploaded(as: number, content: string | Buffer): Promise<number> {
    const response = await scanning().upload(as, uploadForm(content));
    expect(response.status).toBe(201);
    return ((await response.json()) as UserFileBody).id;
  }

  it('reads a pending, an infected and a clean file as the releaser, and verifies all three', async () => {
    const pending = await uploaded(91, 'bytes still being scanned');
    const infected = await uploaded(92, Buffer.from(EICAR_TEST_STRING));
    const clean = await uploaded(93, 'bytes the scan cleared');
    expect((await scanning().download(92, infected)).status).toBe(403);
    expect((await scanning().download(93, clean)).status).toBe(302);
    const waiting = await scanning().request(`/api/v1/user/me/file/${String(pending)}/download`, {
      as: 91,
      redirect: 'manual',
    });
    expect(waiting.status).toBe(409);
    await waiting.body?.cancel();
    // The store holds the other two from the stage's own key, as the bucket's policy does.
    for (const [user, id] of [
      [91, pending],
      [92, infected],
    ] as const) {
      await expect(
        scanning().s3.send(
          new GetObjectCommand({ Bucket: scanning().bucket, Key: userFileObjectKey(user, id) }),
        ),
      ).rejects.toMatchObject({ name: 'AccessDenied' });
    }
    const before = await scanning().stored();
    const { code, out, err } = await scanning().admin([
      'reconcile',
      '--settle-seconds',
      '0',
      '--verify-digests',
    ]);
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(JSON.parse(out)).toEqual({
      clean: true,
      ...NOTHING_WRONG,
      usage_repaired: [],
      digest_mismatches: [],
      digests_unreadable: [],
      digests_verified: 3,
      digests_unrecorded: 0,
      checked: { items: before.items.length + 1, objects: 3, users: 3 },
    });
    // It read, and wrote nothing.
    expect(await scanning().stored()).toEqual(before);
  });
});
