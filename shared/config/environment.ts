import * as z from 'zod';

/**
 * Every environment variable a function reads, with its rule and default. The CDK stack sets
 * each function's environment by these names, so a variable the code reads and the stack
 * forgets is a compile error there, and a bad value stops the container at cold start.
 * This module is the only one that reads `process.env`.
 */
const positiveSeconds = z.coerce.number().positive();

export const ENVIRONMENT = {
  /** The deployment the function belongs to: `production`, `development` or `local`. */
  STAGE: z.string().regex(/^[a-z][a-z0-9-]*$/),
  /** The service's single DynamoDB table. */
  TABLE_NAME: z.string().min(1),
  /** The service's bucket: users' files, deal files and staged direct uploads. */
  BUCKET_NAME: z.string().min(1),
  /** The JWT claim that holds the caller's user id. */
  USER_ID_CLAIM: z.string().min(1).default('sub'),
  /** `iss` of realtime tokens: the stage's base URL. */
  REALTIME_ISSUER: z.url(),
  /** `aud` of realtime tokens. */
  REALTIME_AUDIENCE: z.string().min(1).default('realtime'),
  /** Realtime token lifetime: whole seconds, at most a day. */
  REALTIME_TOKEN_SECONDS: z.coerce.number().int().min(1).max(86_400).default(3600),
  /** The secret holding the realtime signing keys. */
  REALTIME_KEYS_SECRET_ARN: z.string().startsWith('arn:'),
  /** The submission-notification queue. */
  NOTIFY_QUEUE_URL: z.url(),
  /** Its dead-letter queue, where the worker sets aside what it gave up on. */
  NOTIFY_DLQ_URL: z.url(),
  /** The secret holding the chat channel's incoming-webhook URL. */
  CHAT_WEBHOOK_SECRET_ARN: z.string().startsWith('arn:'),
  /** The first retry's wait after a failed post; it doubles after each. */
  CHAT_RETRY_BASE_SECONDS: positiveSeconds.default(30),
  /**
   * How long a post waits for the webhook's answer; at most 20, so that a worker (30 s) still
   * has time to wait in place for the channel's pace.
   */
  CHAT_TIMEOUT_SECONDS: positiveSeconds.max(20).default(10),
  /**
   * The channel's pace: posts a second over every worker. Slack's incoming webhooks take
   * one message a second (api.slack.com/docs/rate-limits, "Posting messages").
   */
  CHAT_POSTS_PER_SECOND: z.coerce.number().positive().max(100).default(1),
  /**
   * A sender's notify allowance: a burst of calls, then a steady rate. 5 covers a client's
   * retries without an Idempotency-Key and a few submissions in a row; 1 a minute lets no one
   * sender hold more than a sixtieth of a channel that takes one message a second, so a
   * flood is five messages (five seconds of channel), not twenty-five.
   */
  NOTIFY_BURST: z.coerce.number().int().min(1).max(1000).default(5),
  NOTIFY_RATE_PER_MINUTE: z.coerce.number().positive().max(6000).default(1),
} as const;

export type EnvironmentName = keyof typeof ENVIRONMENT;
export type Environment = { readonly [K in EnvironmentName]: z.output<(typeof ENVIRONMENT)[K]> };

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
