import * as z from 'zod';

/**
 * Every environment variable a function reads: its rule and default (the schema) and its one
 * description (`.describe`: what it means, and its rule in words). `npm start -- --help`,
 * README.md and the docs' tables take the description from here, and
 * test/unit/variable-descriptions.test.ts holds them to it. The CDK stack sets each function's
 * environment by these names, so a variable the code reads and the stack forgets is a compile
 * error there, and a bad value stops the container at cold start. This module is the only one
 * that reads `process.env`.
 */

/** The longest a realtime token may live, a day: the JWKS keeps a retired key this long. */
export const REALTIME_TOKEN_MAX_SECONDS = 86_400;

/** A number as the docs write it: `86,400`. */
const count = (value: number): string => value.toLocaleString('en-US');

const positiveSeconds = z.coerce.number().positive();

export const ENVIRONMENT = {
  STAGE: z
    .string()
    .regex(/^[a-z][a-z0-9-]*$/)
    .describe(
      'The stage the function belongs to (`production`, `development`, `local`), and the first segment of its room ids: a lower-case letter, then lower-case letters, digits or hyphens',
    ),
  TABLE_NAME: z.string().min(1).describe("The service's single DynamoDB table"),
  BUCKET_NAME: z
    .string()
    .min(1)
    .describe("The service's bucket: users' files, deal files and staged direct uploads"),
  USER_ID_CLAIM: z
    .string()
    .min(1)
    .default('sub')
    .describe("The JWT claim that holds the caller's user id"),
  REALTIME_ISSUER: z.url().describe("Realtime tokens' `iss`: the stage's public base URL"),
  REALTIME_AUDIENCE: z.string().min(1).default('realtime').describe("Realtime tokens' `aud`"),
  REALTIME_TOKEN_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(REALTIME_TOKEN_MAX_SECONDS)
    .default(3600)
    .describe(
      `Realtime tokens' lifetime: whole seconds, 1 to ${count(REALTIME_TOKEN_MAX_SECONDS)} (a day)`,
    ),
  REALTIME_KEYS_SECRET_ARN: z
    .string()
    .startsWith('arn:')
    .describe('The secret holding the realtime signing keys (an ARN)'),
  NOTIFY_QUEUE_URL: z.url().describe('The submission-notification queue (a URL)'),
  NOTIFY_DLQ_URL: z
    .url()
    .describe('Its dead-letter queue, where the worker sets aside what it gave up on (a URL)'),
  CHAT_WEBHOOK_SECRET_ARN: z
    .string()
    .startsWith('arn:')
    .describe("The secret holding the chat channel's incoming-webhook URL (an ARN)"),
  // deliveryRules and retryDelayMs (shared/notifications/delivery-rules.ts): the wait after
  // failed try n is drawn from the upper half of base × 2^(n-1), capped at 15 minutes.
  CHAT_RETRY_BASE_SECONDS: positiveSeconds
    .default(30)
    .describe(
      'Seconds above 0: the most the first retry of a post waits (half to all of it, with jitter); it doubles each time, up to 15 minutes',
    ),
  // At most 20, so that a worker (30 s) still has time to wait in place for the channel's pace.
  CHAT_TIMEOUT_SECONDS: positiveSeconds
    .max(20)
    .default(10)
    .describe('How long a post to the webhook waits for an answer: seconds above 0, at most 20'),
  // Slack's incoming webhooks take one message a second (api.slack.com/docs/rate-limits,
  // "Posting messages").
  CHAT_POSTS_PER_SECOND: z.coerce
    .number()
    .positive()
    .max(100)
    .default(1)
    .describe(
      "The channel's pace: posts a second over every worker, above 0, at most 100 (Slack takes 1)",
    ),
  // A sender's notify allowance: a burst of calls, then a steady rate. 5 covers a client's
  // retries without an Idempotency-Key and a few submissions in a row; 1 a minute lets no one
  // sender hold more than a sixtieth of a channel that takes one message a second, so a
  // flood is five messages (five seconds of channel), not twenty-five.
  NOTIFY_BURST: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(5)
    .describe(
      'Notify calls a sender may make at once, 1 to 1,000; more get `429` with `Retry-After`',
    ),
  NOTIFY_RATE_PER_MINUTE: z.coerce
    .number()
    .positive()
    .max(6000)
    .default(1)
    .describe('Notify calls a minute a sender gets back after the burst, above 0, at most 6,000'),
  // GuardDuty Malware Protection for S3 (docs/adr/0009-malware-scanning.md). Off, no download
  // waits for a verdict and new files are recorded as stored before scanning.
  MALWARE_SCANNING: z
    .enum(['on', 'off'])
    .default('on')
    .describe(
      '`on`: files are scanned for malware and downloadable once clean; `off`: no scan, and files stored meanwhile are held once it is on',
    ),
  // Per-user storage quotas (docs/adr/0010-usage-counting.md): what one user's files and
  // pending direct uploads may hold at once. 10,000 files keep a whole list well inside one
  // answer; 10 GiB is a generous deal room's worth of documents.
  MAX_FILES_PER_USER: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(10_000)
    .describe(
      'Files a user may hold, pending direct uploads included: 1 to 1,000,000; more get `403`',
    ),
  MAX_BYTES_PER_USER: z.coerce
    .number()
    .int()
    .min(1)
    .max(Number.MAX_SAFE_INTEGER)
    .default(10 * 1024 ** 3)
    .describe(
      'Bytes a user may hold, pending direct uploads at their declared size included: at least 1; more get `403`',
    ),
} as const;

export type EnvironmentName = keyof typeof ENVIRONMENT;
export type Environment = { readonly [K in EnvironmentName]: z.output<(typeof ENVIRONMENT)[K]> };

/** A variable's one description: what it means, and its rule in words. */
export const describeVariable = (name: EnvironmentName): string =>
  ENVIRONMENT[name].description ?? name;

/** A variable's default as the docs write it, or undefined when it has none (it is required). */
export function defaultOf(name: EnvironmentName): string | undefined {
  const parsed = ENVIRONMENT[name].safeParse(undefined);
  return parsed.success ? String(parsed.data) : undefined;
}

/** A variable missing or out of its rule: the container stops before it takes a request. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * The named variables, checked against their rules; every problem is reported at once.
 * Blank values count as unset, so a default applies.
 */
export function readEnvironment<const K extends EnvironmentName>(
  names: readonly K[],
  source: Readonly<Record<string, string | undefined>> = process.env,
): Pick<Environment, K> {
  const values: Partial<Record<EnvironmentName, unknown>> = {};
  const problems: string[] = [];
  for (const name of names) {
    const raw = source[name];
    const parsed = ENVIRONMENT[name].safeParse(raw?.trim() === '' ? undefined : raw);
    if (parsed.success) values[name] = parsed.data;
    else problems.push(`${name}: ${parsed.error.issues.map((issue) => issue.message).join('; ')}`);
  }
  if (problems.length > 0) {
    throw new ConfigError(`Environment not usable: ${problems.join(' | ')}`);
  }
  return values as Pick<Environment, K>;
}
