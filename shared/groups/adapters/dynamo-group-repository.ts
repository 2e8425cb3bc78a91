import {
  type DynamoDBDocumentClient,
  type TransactWriteCommandInput,
  GetCommand,
  paginateQuery,
  paginateScan,
  PutCommand,
} from '@aws-sdk/lib-dynamodb';
import {
  conditionItemExists,
  isConditionFailure,
  putNewItem,
} from '../../storage/aws/conditional-writes.ts';
import { conditionsFailed, failedAt, transactWrite } from '../../storage/aws/transactions.ts';
import type { AccessEntry } from '../../access-trail/access-entry.ts';
import {
  accessEntryPut,
  type TrailTable,
  trailFaultOf,
} from '../../access-trail/adapters/access-entry-item.ts';
import {
  DEAL_SORT_PREFIX,
  dealSortKey,
  groupPartition,
  groupSortKey,
  memberSortKey,
  PARTITION_KEY,
  SORT_KEY,
} from '../../storage/keys.ts';
import { type Deal, type Group, isRole, type Membership, type Role } from '../group.ts';
import type { GroupRepository } from '../group-repository.ts';

const NAMES = { '#pk': PARTITION_KEY } as const;

const groupKey = (groupId: number) => ({
  [PARTITION_KEY]: groupPartition(groupId),
  [SORT_KEY]: groupSortKey(groupId),
});
export const memberKey = (groupId: number, userId: number) => ({
  [PARTITION_KEY]: groupPartition(groupId),
  [SORT_KEY]: memberSortKey(userId),
});
export const dealKey = (groupId: number, dealId: number) => ({
  [PARTITION_KEY]: groupPartition(groupId),
  [SORT_KEY]: dealSortKey(dealId),
});

export const toGroupItem = (group: Group) => ({
  ...groupKey(group.id),
  entity: 'Group',
  id: group.id,
  name: group.name,
  created_at: group.createdAt,
});

export const toMemberItem = (membership: Membership) => ({
  ...memberKey(membership.groupId, membership.userId),
  entity: 'Member',
  group_id: membership.groupId,
  user_id: membership.userId,
  role: membership.role,
});

export const toDealItem = (deal: Deal) => ({
  ...dealKey(deal.groupId, deal.id),
  entity: 'Deal',
  group_id: deal.groupId,
  id: deal.id,
  name: deal.name,
  created_at: deal.createdAt,
});

const dealOf = (item: Record<string, unknown>): Deal => ({
  groupId: Number(item.group_id),
  id: Number(item.id),
  name: String(item.name),
  createdAt: String(item.created_at),
});

/** A role as stored; anything else (a hand-edited item) grants nothing. */
export const roleOf = (item: Record<string, unknown> | undefined): Role | undefined =>
  item !== undefined && isRole(item.role) ? item.role : undefined;

export class DynamoGroupRepository implements GroupRepository {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  /**
   * Where a membership change's entry goes, asked for only then: the operator's other
   * commands work on a stage deployed before the trail.
   */
  private readonly trail: (() => TrailTable) | undefined;

  constructor(client: DynamoDBDocumentClient, tableName: string, trail?: () => TrailTable) {
    this.client = client;
    this.tableName = tableName;
    this.trail = trail;
  }

  private trailTable(): TrailTable {
    if (this.trail === undefined) {
      throw new Error('Groups were built without the access trail: a membership change needs it');
    }
    return this.trail();
  }

  /**
   * A membership change and its entry (last), in one transaction: undefined when written, the
   * cancellation when one of its conditions failed (nothing written).
   */
  private async withEntry(
    items: NonNullable<TransactWriteCommandInput['TransactItems']>,
    entry: AccessEntry,
  ): Promise<unknown> {
    const trail = this.trailTable();
    try {
      await transactWrite(this.client, {
        TransactItems: [...items, accessEntryPut(trail, entry)],
      });
      return undefined;
    } catch (error) {
      if (conditionsFailed(error)) return error;
      throw trailFaultOf(error, trail, items.length) ?? error;
    }
  }

  async memberRole(groupId: number, userId: number): Promise<Role | undefined> {
    return roleOf(await this.get(memberKey(groupId, userId)));
  }

  async createGroup(group: Group): Promise<boolean> {
    try {
      await this.client.send(new PutCommand(putNewItem(this.tableName, toGroupItem(group))));
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async setMember(
    membership: Membership,
    previous: Role | null,
    entry: AccessEntry,
  ): Promise<'set' | 'group-missing' | 'changed'> {
    const asRead =
      previous === null
        ? { ConditionExpression: 'attribute_not_exists(#pk)', ExpressionAttributeNames: NAMES }
        : {
            ConditionExpression: '#role = :previous',
            ExpressionAttributeNames: { '#role': 'role' },
            ExpressionAttributeValues: { ':previous': previous },
          };
    // The group is checked in the same transaction, so no member outlives a check that found
    // its group; the membership, so the entry says what the change was.
    const items = [
      conditionItemExists(this.tableName, groupKey(membership.groupId)),
      { Put: { TableName: this.tableName, Item: toMemberItem(membership), ...asRead } },
    ];
    const refused = await this.withEntry(items, entry);
    if (refused === undefined) return 'set';
    return failedAt(refused, 0) ? 'group-missing' : 'changed';
  }

  async removeMember(
    groupId: number,
    userId: number,
    recorded: { readonly role: Role; readonly entry: AccessEntry },
  ): Promise<Role | undefined> {
    const removed = await this.withEntry(
      [
        {
          Delete: {
            TableName: this.tableName,
            Key: memberKey(groupId, userId),
            ConditionExpression: '#role = :role',
            ExpressionAttributeNames: { '#role': 'role' },
            ExpressionAttributeValues: { ':role': recorded.role },
          },
        },
      ],
      recorded.entry,
    );
    return removed === undefined ? recorded.role : undefined;
  }

  async createDeal(deal: Deal): Promise<'created' | 'group-missing' | 'deal-exists'> {
    try {
      await transactWrite(this.client, {
        TransactItems: [
          conditionItemExists(this.tableName, groupKey(deal.groupId)),
          { Put: putNewItem(this.tableName, toDealItem(deal)) },
        ],
      });
      return 'created';
    } catch (error) {
      if (failedAt(error, 0)) return 'group-missing';
      if (failedAt(error, 1)) return 'deal-exists';
      throw error;
    }
  }

  async getDeal(groupId: number, dealId: number): Promise<Deal | undefined> {
    const item = await this.get(dealKey(groupId, dealId));
    return item === undefined ? undefined : dealOf(item);
  }

  async dealsOf(groupId: number): Promise<readonly Deal[] | undefined> {
    const deals: Deal[] = [];
    const [group] = await Promise.all([
      this.get(groupKey(groupId)),
      (async () => {
        const pages = paginateQuery(
          { client: this.client },
          {
            TableName: this.tableName,
            ConsistentRead: true,
            KeyConditionExpression: '#pk = :group AND begins_with(#sk, :deal)',
            ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY },
            ExpressionAttributeValues: {
              ':group': groupPartition(groupId),
              ':deal': DEAL_SORT_PREFIX,
            },
          },
        );
        for await (const page of pages) deals.push(...(page.Items ?? []).map(dealOf));
      })(),
    ]);
    return group === undefined ? undefined : deals.sort((a, b) => a.id - b.id);
  }

  async membershipsOf(userId: number): Promise<readonly Membership[]> {
    // Memberships live in their groups' partitions, so finding one user's reads every item:
    // an operator's rare erasure, never a request's path (no function may scan).
    const found: Membership[] = [];
    const pages = paginateScan(
      { client: this.client },
      {
        TableName: this.tableName,
        ConsistentRead: true,
        FilterExpression: '#sk = :member AND begins_with(#pk, :group)',
        ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY },
        ExpressionAttributeValues: { ':member': memberSortKey(userId), ':group': 'GROUP#' },
      },
    );
    for await (const page of pages) {
      for (const item of page.Items ?? []) {
        if (isRole(item.role)) {
          found.push({ groupId: Number(item.group_id), userId, role: item.role });
        }
      }
    }
    return found.sort((a, b) => a.groupId - b.groupId);
  }

  private async get(key: Record<string, string>): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }),
    );
    return Item;
  }
}
