import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { isConditionFailure, putNewUserItem } from '../../storage/aws/conditional-writes.ts';
import {
  EXPIRY_ATTRIBUTE,
  notificationSortKey,
  PARTITION_KEY,
  SORT_KEY,
  userPartition,
} from '../../storage/keys.ts';
import { fromNotificationItem } from './notification-item.ts';
import { readWithRetries } from '../../domain/read-with-retries.ts';
import type { NotificationRepository, TryVerdict } from '../notification-repository.ts';
import type { NotificationRef, SubmissionNotification } from '../submission-notification.ts';
import type { AdapterSources } from '../../storage/adapter-sources.ts';

/** Notification records go once the dead-letter queue (14 days) can no longer redrive them. */
const NOTIFICATION_RETENTION_DAYS = 30;

const keyOf = (ref: NotificationRef) => ({
  [PARTITION_KEY]: userPartition(ref.userId),
  [SORT_KEY]: notificationSortKey(ref.notificationId),
});

export const toNotificationItem = (n: SubmissionNotification) => ({
  ...keyOf(n),
  entity: 'SubmissionNotification',
  notification_id: n.notificationId,
  user_id: n.userId,
  files: n.files.map((f) => ({
    id: f.id,
    name: f.name,
    type: f.type,
    size: f.size,
    ...(f.held === undefined ? {} : { held: f.held }),
  })),
  fund_name: n.fundName,
  message: n.message,
  status: n.status,
  created_at: n.createdAt,
  updated_at: n.updatedAt,
  sent_at: n.sentAt,
  attempts: n.attempts,
  round_attempts: n.roundAttempts,
  last_error: n.lastError,
  not_before: n.notBefore,
  lease_until: n.leaseUntil,
  version: n.version,
  [EXPIRY_ATTRIBUTE]:
    Math.floor(Date.parse(n.createdAt) / 1000) + NOTIFICATION_RETENTION_DAYS * 86_400,
});

const NAMES = { '#status': 'status', '#version': 'version' } as const;

export class DynamoNotificationRepository implements NotificationRepository {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.client = client;
    this.tableName = tableName;
  }

  async create(notification: SubmissionNotification): Promise<void> {
    await putNewUserItem(
      this.client,
      this.tableName,
      notification.userId,
      toNotificationItem(notification),
    );
  }

  async get(ref: NotificationRef): Promise<SubmissionNotification | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: keyOf(ref), ConsistentRead: true }),
    );
    return Item === undefined ? undefined : fromNotificationItem(Item);
  }

  async discard(ref: NotificationRef, version: number): Promise<boolean> {
    return this.whileAt(
      new DeleteCommand({
        TableName: this.tableName,
        Key: keyOf(ref),
        ConditionExpression: '#version = :version',
        ExpressionAttributeNames: { '#version': 'version' },
        ExpressionAttributeValues: { ':version': version },
      }),
    );
  }

  async claim(
    ref: NotificationRef,
    version: number,
    at: Date,
    leaseUntil: Date,
    newRound: boolean,
  ): Promise<SubmissionNotification | undefined> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keyOf(ref),
          UpdateExpression:
            'SET #status = :sending, lease_until = :lease, updated_at = :at, ' +
            'attempts = attempts + :one, ' +
            (newRound ? 'round_attempts = :one, ' : 'round_attempts = round_attempts + :one, ') +
            '#version = :next',
          ConditionExpression: '#version = :version',
          ExpressionAttributeNames: NAMES,
          ExpressionAttributeValues: {
            ':sending': 'sending',
            ':lease': leaseUntil.toISOString(),
            ':at': at.toISOString(),
            ':one': 1,
            ':version': version,
            ':next': version + 1,
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes === undefined ? undefined : fromNotificationItem(Attributes);
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // Our claim may have landed and lost its answer, failing the SDK's retry: a read shows
      // whether the lease there is this one (its very time, to the millisecond).
      const now = await readWithRetries(() => this.get(ref));
      const ours =
        now?.version === version + 1 &&
        now.status === 'sending' &&
        now.leaseUntil === leaseUntil.toISOString() &&
        now.updatedAt === at.toISOString();
      return ours ? now : undefined;
    }
  }

  async settle(
    ref: NotificationRef,
    version: number,
    at: Date,
    verdict: TryVerdict,
  ): Promise<boolean> {
    const when = at.toISOString();
    if (verdict.status === 'sent') {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keyOf(ref),
          UpdateExpression:
            'SET #status = :sent, sent_at = :at, updated_at = :at, last_error = :none, ' +
            'lease_until = :none, #version = #version + :one',
          ConditionExpression: 'attribute_exists(#pk)',
          ExpressionAttributeNames: { ...NAMES, '#pk': PARTITION_KEY },
          ExpressionAttributeValues: { ':sent': 'sent', ':at': when, ':none': null, ':one': 1 },
        }),
      );
      return true;
    }
    return this.whileAt(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keyOf(ref),
        UpdateExpression:
          'SET #status = :status, updated_at = :at, last_error = :error, ' +
          'not_before = :notBefore, lease_until = :none, #version = :next',
        ConditionExpression: '#version = :version',
        ExpressionAttributeNames: NAMES,
        ExpressionAttributeValues: {
          ':status': verdict.status,
          ':at': when,
          ':error': verdict.error,
          ':notBefore': verdict.status === 'queued' ? verdict.notBefore.toISOString() : null,
          ':none': null,
          ':version': version,
          ':next': version + 1,
        },
      }),
    );
  }

  async abandon(ref: NotificationRef, version: number, at: Date): Promise<boolean> {
    return this.whileAt(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keyOf(ref),
        UpdateExpression:
          'SET #status = :unconfirmed, updated_at = :at, last_error = :error, ' +
          'lease_until = :none, #version = :next',
        ConditionExpression: '#version = :version AND #status = :sending',
        ExpressionAttributeNames: NAMES,
        ExpressionAttributeValues: {
          ':unconfirmed': 'unconfirmed',
          ':sending': 'sending',
          ':at': at.toISOString(),
          ':error': 'The worker stopped during a try; the message may have been posted',
          ':none': null,
          ':version': version,
          ':next': version + 1,
        },
      }),
    );
  }

  /** Runs a write conditional on the version; false when the record had moved on. */
  private async whileAt(command: UpdateCommand | DeleteCommand): Promise<boolean> {
    try {
      await this.client.send(command);
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}

/** Submission notifications' records. */
export const notifications = ({
  documents,
  TABLE_NAME,
}: Pick<AdapterSources, 'documents' | 'TABLE_NAME'>) =>
  new DynamoNotificationRepository(documents(), TABLE_NAME);
