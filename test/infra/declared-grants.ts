/**
 * A function's declared grants as the IAM calls they allow, one line per action and resource:
 * `dynamodb:Query @ table/index/FilesByCreation [USER#*]`, `s3:GetObject @ bucket/users/*`.
 * The infra tests read the synthesized template in the same words, so the template and the
 * declarations are compared call by call, however CDK merges statements.
 */
import type {
  BucketGrant,
  FunctionDeclaration,
  ItemGrant,
  TrailGrant,
} from '#shared/functions/function-declaration.ts';
import { PARTITION_KEYS } from '#shared/functions/function-declaration.ts';
import { DIGEST_PREFIX } from '#shared/access-trail/adapters/s3-trail-digests.ts';
import { PARTITION_KEY, SORT_KEY } from '#shared/storage/keys.ts';

/**
 * What the SQS event source grants its consumer (`notificationQueue: 'consume'`): CDK's
 * choice, written out so that a change in it shows.
 */
const CONSUMER_ACTIONS = [
  'sqs:ChangeMessageVisibility',
  'sqs:DeleteMessage',
  'sqs:GetQueueAttributes',
  'sqs:GetQueueUrl',
  'sqs:ReceiveMessage',
];

const itemCalls = (grant: ItemGrant): string[] =>
  grant.items.map(
    (item) =>
      `dynamodb:${item} @ table${grant.index === undefined ? '' : `/index/${grant.index}`} [${PARTITION_KEYS[grant.in]}]${grant.keysOnly === true ? ` (${PARTITION_KEY} ${SORT_KEY})` : ''}`,
  );

/** The trail's table has no partitions to name: the table, or one of its indexes. */
const trailCalls = (grant: TrailGrant): string[] =>
  grant.items.map(
    (item) => `dynamodb:${item} @ trail${grant.index === undefined ? '' : `/index/${grant.index}`}`,
  );

function bucketCalls(grant: BucketGrant): string[] {
  if ('objects' in grant)
    return grant.objects.map((action) => `${action} @ bucket/${grant.under}*`);
  if ('missingObjectsAsNotFound' in grant) return ['s3:ListBucket @ bucket'];
  return [
    `s3:ListBucketVersions @ bucket {${grant.listVersionsUnder.map((prefix) => `${prefix}*`).join(' ')}}`,
  ];
}

/** Every call a declaration grants, sorted, each once. */
export function declaredCalls(fn: FunctionDeclaration): string[] {
  const calls = [
    ...(fn.table ?? []).flatMap(itemCalls),
    ...(fn.trail ?? []).flatMap(trailCalls),
    ...(fn.bucket ?? []).flatMap(bucketCalls),
    ...(fn.trailDigests === 'seal'
      ? [
          `s3:GetObject @ digests/${DIGEST_PREFIX}*`,
          `s3:PutObject @ digests/${DIGEST_PREFIX}*`,
          `s3:ListBucket @ digests {${DIGEST_PREFIX}*}`,
        ]
      : []),
    ...(fn.notificationQueue === 'send' ? ['sqs:SendMessage @ queue'] : []),
    ...(fn.notificationQueue === 'consume'
      ? CONSUMER_ACTIONS.map((action) => `${action} @ queue`)
      : []),
    ...(fn.notificationDeadLetters === 'send' ? ['sqs:SendMessage @ dead letters'] : []),
    ...(fn.realtimeKeys === undefined ? [] : ['secretsmanager:GetSecretValue @ realtime keys']),
    ...(fn.realtimeKeys === 'read-write' ? ['secretsmanager:PutSecretValue @ realtime keys'] : []),
    ...(fn.chatWebhook === 'read' ? ['secretsmanager:GetSecretValue @ webhook secret'] : []),
  ];
  return [...new Set(calls)].sort();
}
