import { PutObjectCommand } from '@aws-sdk/client-s3';
import { dealFileObjectKey } from '#shared/storage/keys.ts';
import type { DealFile } from '#shared/deal-files/deal-file.ts';
import { toDealFileItem } from '#shared/storage/file-items.ts';
import {
  toDealItem,
  toGroupItem,
  toMemberItem,
} from '#shared/groups/adapters/dynamo-group-repository.ts';
import type { Role } from '#shared/groups/group.ts';
import type { TestStage } from './test-stage.ts';

const CREATED = '2026-06-01T09:00:00.000Z';

export const dealFile = (
  groupId: number,
  dealId: number,
  id: number,
  overrides: Partial<DealFile> = {},
): DealFile => ({
  groupId,
  dealId,
  id,
  name: `deal ${dealId} file ${id}.pdf`,
  type: 'deck',
  createdAt: new Date(Date.parse(CREATED) + id * 1000).toISOString(),
  updatedAt: null,
  isArchived: false,
  filesize: 5,
  location: `s3://bucket/${dealFileObjectKey(groupId, dealId, id)}`,
  ...overrides,
});

/** The contract's DealFile body for a seeded file. */
export const dealFileBody = (file: DealFile) => ({
  name: file.name,
  id: file.id,
  deal_id: file.dealId,
  type: file.type,
  created_at: file.createdAt,
  updated_at: file.updatedAt,
  is_archived: file.isArchived,
});

/** Seeds groups, members, deals and deal files (records and their objects). */
export async function seedDeals(
  stage: TestStage,
  seed: {
    groups: readonly number[];
    members?: readonly { groupId: number; userId: number; role: Role }[];
    deals: readonly { groupId: number; dealId: number }[];
    files?: readonly DealFile[];
  },
): Promise<void> {
  await stage.put([
    ...seed.groups.map((id) => toGroupItem({ id, name: `Group ${id}`, createdAt: CREATED })),
    ...(seed.members ?? []).map(toMemberItem),
    ...seed.deals.map(({ groupId, dealId }) =>
      toDealItem({ groupId, id: dealId, name: `Deal ${dealId}`, createdAt: CREATED }),
    ),
    ...(seed.files ?? []).map(toDealFileItem),
  ]);
  await Promise.all(
    (seed.files ?? []).map((file) =>
      stage.s3.send(
        new PutObjectCommand({
          Bucket: stage.bucket,
          Key: dealFileObjectKey(file.groupId, file.dealId, file.id),
          Body: 'bytes',
        }),
      ),
    ),
  );
}
