import { describe, expect, it } from 'vitest';
import { fromDirectUploadItem } from '#shared/storage/direct-upload-item.ts';
import {
  fromDealFileItem,
  fromUserFileItem,
  toDealFileItem,
  toUserFileItem,
} from '#shared/storage/file-items.ts';
import { fromNotificationItem } from '#shared/notifications/adapters/notification-item.ts';
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
});
