import { describe, expect, it } from 'vitest';
import { fromDirectUploadItem } from '#shared/storage/direct-upload-item.ts';
import {
  fromDealFileItem,
  fromUserFileItem,
  toDealFileItem,
  toUserFileItem,
} from '#shared/storage/file-items.ts';
import { fromNotificationItem } from '#shared/notifications/adapters/notification-item.ts';
import {
  fromUploadRefusalsItem,
  REFUSALS_KEPT,
  withRefusal,
} from '#shared/direct-uploads/adapters/upload-refusals-item.ts';
import type { DirectUpload } from '#shared/direct-uploads/direct-upload.ts';
import type { DealFile } from '#shared/deal-files/deal-file.ts';
import type { UserFile } from '#shared/user-files/user-file.ts';

const userFile: UserFile = {
  id: 7,
  userId: 3,
  name: 'deck.pdf',
  type: 'deck',
  createdAt: '2026-11-23T00:00:00.000Z',
  updatedAt: null,
  isArchived: false,
  filesize: 12,
  location: 's3://bucket/users/3/files/7',
};
const { userId: _owner, ...fields } = userFile;
const dealFile: DealFile = { ...fields, groupId: 1, dealId: 2 };

describe('storage items are written and read through their own schemas', () => {
  it('round-trips a user file and a deal file', () => {
    expect(fromUserFileItem(toUserFileItem(userFile))).toEqual(userFile);
    expect(fromDealFileItem(toDealFileItem(dealFile))).toEqual(dealFile);
  });

  it.each([
    ['a missing size', { filesize: undefined }],
    ['a type no file has', { type: 'memo' }],
    ['another entity', { entity: 'DealFile' }],
  ])('refuses an item with %s instead of inventing a value', (_, change) => {
    expect(() => fromUserFileItem({ ...toUserFileItem(userFile), ...change })).toThrow();
  });

  it('refuses a direct upload or a notification that is not one', () => {
    expect(() => fromDirectUploadItem({ entity: 'DirectUpload', id: 1 })).toThrow();
    expect(() => fromNotificationItem({ entity: 'SubmissionNotification' })).toThrow();
  });

  it("keeps a user's last refusals in one item, and refuses one that is not theirs", () => {
    const upload = (id: number): DirectUpload => ({
      id,
      userId: 3,
      name: 'model.xlsx',
      type: 'financials',
      contentType: 'application/octet-stream',
      declaredSize: 10,
      reserved: true,
      createdAt: '2026-11-23T00:00:00.000Z',
      expiresAt: '2026-11-23T00:15:00.000Z',
      status: 'completing',
    });
    let item = withRefusal(undefined, upload(1), 'empty');
    for (let id = 2; id <= REFUSALS_KEPT + 1; id++) {
      item = fromUploadRefusalsItem(withRefusal(item, upload(id), 'larger_than_declared'));
    }
    expect(item.refusals.map((refused) => refused.id)).toEqual(
      Array.from({ length: REFUSALS_KEPT }, (_, i) => i + 2),
    );
    expect(item).toMatchObject({ version: REFUSALS_KEPT + 1, SK: 'REFUSED#uploads' });
    // A day after the newest form expires, in epoch seconds.
    expect(item.expiration).toBe(Date.parse('2026-11-24T00:15:00.000Z') / 1000);
    expect(() => fromUploadRefusalsItem({ ...item, refusals: [{ id: 1 }] })).toThrow();
  });
});
