import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchGetAll, itemsByKey } from '../../storage/aws/batch-get.ts';
import type { DealRoleReader } from '../deal-roles.ts';
import { dealKey, memberKey, roleOf } from './dynamo-group-repository.ts';
import type { DealRef, Role } from '../group.ts';
import type { AdapterSources } from '../../storage/adapter-sources.ts';

/**
 * One strongly consistent BatchGetItem over the user's membership in each distinct group and
 * each distinct deal: 50 rooms are at most 100 keys, one call.
 */
class DynamoDealRoles implements DealRoleReader {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.client = client;
    this.tableName = tableName;
  }

  async rolesIn(userId: number, deals: readonly DealRef[]): Promise<(Role | undefined)[]> {
    if (deals.length === 0) return [];
    // One key per distinct group membership and per distinct deal.
    const keys = new Map<string, Record<string, string>>();
    for (const deal of deals) {
      for (const key of [memberKey(deal.groupId, userId), dealKey(deal.groupId, deal.dealId)]) {
        keys.set(`${key.PK} ${key.SK}`, key);
      }
    }
    const find = itemsByKey(
      await batchGetAll(this.client, this.tableName, [...keys.values()], ['role']),
    );
    return deals.map((deal) =>
      find(dealKey(deal.groupId, deal.dealId)) === undefined
        ? undefined
        : roleOf(find(memberKey(deal.groupId, userId))),
    );
  }
}

/** A user's role in each of many deals, read from the groups' items in the table. */
export const dealRoles = ({
  documents,
  TABLE_NAME,
}: Pick<AdapterSources, 'documents' | 'TABLE_NAME'>) =>
  new DynamoDealRoles(documents(), TABLE_NAME);
