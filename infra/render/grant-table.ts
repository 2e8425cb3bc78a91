/**
 * The table of docs/deploying.md, "Least privilege", from the functions' declarations: what
 * each function's role may do, in the page's words (`npm run render` writes it).
 */
import { SERVICE_FUNCTIONS } from '#functions/service-functions.ts';
import {
  type BucketGrant,
  type FunctionDeclaration,
  type ItemGrant,
  PARTITION_KEYS,
  type TrailGrant,
} from '#shared/functions/function-declaration.ts';
import { DIGEST_PREFIX } from '#shared/access-trail/adapters/s3-trail-digests.ts';
import { code, markdownTable } from './markdown.ts';

const because = (why: string | undefined) => (why === undefined ? '' : ` (${why})`);

const items = (grant: ItemGrant): string =>
  `${grant.items.join(', ')} ${code(PARTITION_KEYS[grant.in])}` +
  (grant.index === undefined ? '' : ` on the ${code(grant.index)} index`) +
  `${grant.keysOnly === true ? ', key attributes only' : ''}${because(grant.why)}`;

const trailCalls = (grant: TrailGrant): string =>
  `${grant.items.join(', ')} on the access trail` +
  (grant.index === undefined ? '' : ` (its ${code(grant.index)} index)`) +
  because(grant.why);

function objects(grant: BucketGrant): string {
  if ('objects' in grant) {
    return `${grant.objects.join(', ')} under ${code(grant.under)}${because(grant.why)}`;
  }
  if ('missingObjectsAsNotFound' in grant) {
    return 's3:ListBucket (so a missing object is a 404, not a 403)';
  }
  return `s3:ListBucketVersions with ${code('s3:prefix')} ${grant.listVersionsUnder.map((prefix) => code(`${prefix}*`)).join(' or ')}`;
}

/** What one function may do, in the page's words. */
function mayDo(fn: FunctionDeclaration): string {
  const said = [
    ...(fn.table ?? []).map(items),
    ...(fn.trail ?? []).map(trailCalls),
    ...(fn.trailDigests === 'seal'
      ? [
          `s3:ListBucket, s3:GetObject, s3:PutObject under ${code(DIGEST_PREFIX)} of the digest bucket (a put without ${code('If-None-Match')} refused by the bucket)`,
        ]
      : []),
    ...(fn.bucket ?? []).map(objects),
    ...(fn.notificationQueue === 'send' ? ['sqs:SendMessage to the notification queue'] : []),
    ...(fn.notificationQueue === 'consume'
      ? ['receive, delete and put off messages on the notification queue (its event source)']
      : []),
    ...(fn.notificationDeadLetters === 'send'
      ? ['sqs:SendMessage to the notification dead-letter queue']
      : []),
    ...(fn.realtimeKeys === 'read' ? ['GetSecretValue on the signing keys'] : []),
    ...(fn.realtimeKeys === 'read-write' ? ['Get/PutSecretValue on the signing keys'] : []),
    ...(fn.chatWebhook === 'read' ? ['GetSecretValue on the webhook secret'] : []),
  ];
  return said.length === 0 ? 'nothing' : said.join('; ');
}

/** Each function's row: its id and what it may do. */
export const grantTable = (): string =>
  markdownTable(
    ['Function', 'May'],
    SERVICE_FUNCTIONS.map((fn: FunctionDeclaration) => [fn.id, mayDo(fn)]),
  );
