/** Entries seeded into a test stage's trail, and the entry a reader's body shows. */
import { randomBytes } from 'node:crypto';
import type { AccessEntry } from '#shared/access-trail/access-entry.ts';
import type { AccessEntryBody } from '#shared/access-reports/api/access-entry.ts';
import { trailTableNameOf } from '#infra/local/dynamodb/dynamodb-local.ts';
import { standInClients, type TestStage } from './test-stage.ts';
import { seedTrail } from './trail-seed.ts';

/** Stores the entries in a test stage's trail, as its item module stores them. */
export async function seedStageTrail(
  stage: Pick<TestStage, 'tableName'>,
  entries: readonly AccessEntry[],
): Promise<void> {
  const { dynamodb } = standInClients();
  try {
    await seedTrail(dynamodb, trailTableNameOf(stage.tableName), entries);
  } finally {
    dynamodb.destroy();
  }
}

/** The entry a reader's body shows (what the body leaves out: a new id). */
export const entryOfBody = (body: AccessEntryBody): AccessEntry => ({
  at: body.at,
  id: randomBytes(16).toString('hex'),
  action: body.action,
  outcome: body.outcome,
  actor: body.actor,
  ...(body.status === null ? {} : { status: body.status }),
  ...(body.user_id === null ? {} : { userId: body.user_id }),
  ...(body.group_id === null ? {} : { groupId: body.group_id }),
  ...(body.deal_id === null ? {} : { dealId: body.deal_id }),
  ...(body.file_id === null ? {} : { fileId: body.file_id }),
  ...(body.room_id === null ? {} : { roomId: body.room_id }),
  ...(body.source_file_id === null ? {} : { sourceFileId: body.source_file_id }),
  ...(body.source_user_id === null ? {} : { sourceUserId: body.source_user_id }),
  ...(body.member_id === null ? {} : { memberId: body.member_id }),
  ...(body.owner_id === null ? {} : { ownerId: body.owner_id }),
  ...(body.role === null ? {} : { role: body.role }),
  ...(body.previous_role === null ? {} : { previousRole: body.previous_role }),
  ...(body.request_id === null ? {} : { requestId: body.request_id }),
  ...(body.source_ip === null ? {} : { sourceIp: body.source_ip }),
  ...(body.user_agent === null ? {} : { userAgent: body.user_agent }),
});
