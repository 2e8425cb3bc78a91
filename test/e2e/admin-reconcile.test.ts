import { PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { dealFileObjectKey, userFileObjectKey } from '#shared/adapters/keys.ts';
import { toDealFileItem } from '#shared/adapters/items/file-items.ts';
import { toDirectUploadItem } from '#shared/adapters/dynamo-direct-upload-repository.ts';
import { toNotificationItem } from '#shared/adapters/dynamo-notification-repository.ts';
import { toUserFileItem } from '#shared/adapters/items/file-items.ts';
import { useTestStage } from '#test/support/test-stage.ts';

const stage = useTestStage();

async function reconcile(...flags: string[]) {
  const { code, out, err } = await stage().admin(['reconcile', ...flags]);
  expect(err).toBe('');
  expect(code).toBe(0);
  return JSON.parse(out) as Record<string, unknown>;
}

const putObject = (key: string) =>
  stage().s3.send(new PutObjectCommand({ Bucket: stage().bucket, Key: key, Body: 'bytes' }));

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
      uploads_in_flight: 0,
      objects_settling: 0,
      checked: { items: 1, objects: 1 },
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
      uploads_in_flight: 1,
      objects_settling: 0,
      checked: { items: 8, objects: 3 },
    });
    // With the default 15 minutes to settle, the fresh orphans are counted, not judged.
    expect(await reconcile()).toMatchObject({
      objects_without_records: [],
      objects_settling: 2,
    });
    // It reads; it changes nothing.
    expect((await stage().stored()).items.length).toBe(before.items.length + 7);
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
