/**
 * The table of docs/deploying.md, "Least privilege", rendered from the functions'
 * declarations: `node test/infra/grant-table.ts` prints it, and
 * test/infra/grant-table.test.ts fails while the page shows anything else.
 */
import { SERVICE_FUNCTIONS } from '#functions/service-functions.ts';
import {
  type BucketGrant,
  type FunctionDeclaration,
  type ItemGrant,
  PARTITION_KEYS,
} from '#shared/functions/function-declaration.ts';

const code = (text: string) => `\`${text}\``;
const because = (why: string | undefined) => (why === undefined ? '' : ` (${why})`);

const items = (grant: ItemGrant): string =>
  `${grant.items.join(', ')} ${code(PARTITION_KEYS[grant.in])}` +
  `${grant.index === undefined ? '' : ` on the ${code(grant.index)} index`}${because(grant.why)}`;

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
export const GRANT_ROWS: readonly (readonly [string, string])[] = SERVICE_FUNCTIONS.map(
  (fn: FunctionDeclaration) => [fn.id, mayDo(fn)] as const,
);

/** The rows as a Markdown table, its columns padded as Prettier pads them. */
function grantTable(): string {
  const rows = [['Function', 'May'] as const, ...GRANT_ROWS];
  const first = Math.max(...rows.map(([id]) => id.length));
  const second = Math.max(...rows.map(([, may]) => may.length));
  const line = ([id, may]: readonly [string, string]) =>
    `| ${id.padEnd(first)} | ${may.padEnd(second)} |`;
  const [heading, ...body] = rows.map(line);
  return [heading, `| ${'-'.repeat(first)} | ${'-'.repeat(second)} |`, ...body].join('\n');
}

if (import.meta.main) process.stdout.write(`${grantTable()}\n`);
