import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchGetAll } from '../aws/batch-get.ts';
import { PARTITION_KEY, SORT_KEY } from '../data/keys.ts';
import type { DealRoleReader } from './deal-roles.ts';
import { dealKey, memberKey, roleOf } from './dynamo-group-repository.ts';
import type { DealRef, Role } from './group.ts';

const keyString = (key: Record<string, unknown>) =>
  `${String(key[PARTITION_KEY])}\u0000${String(key[SORT_KEY])}`;

/**
 * One strongly consistent BatchGetItem over the user's membership in each distinct group and
 * each distinct deal: 50 rooms are at most 100 keys, one call.
 */
export class DynamoDealRoles implements DealRoleReader {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.client = client;
    this.tableName = tableName;
  }

  async rolesIn(userId: number, deals: readonly DealRef[]): Promise<(Role | undefined)[]> {
    if (deals.length === 0) return [];
    const keys = new Map<string, Record<string, string>>();
    for (const deal of deals) {
      for (const key of [memberKey(deal.groupId, userId), dealKey(deal.groupId, deal.dealId)]) {
        keys.set(keyString(key), key);
      }
    }
    const found = new Map(
      (await batchGetAll(this.client, this.tableName, [...keys.values()], ['role'])).map((item) => [
        keyString(item),
        item,
      ]),
    );
    return deals.map((deal) =>
      found.has(keyString(dealKey(deal.groupId, deal.dealId)))
        ? roleOf(found.get(keyString(memberKey(deal.groupId, userId))))
        : undefined,
    );
  }
}
