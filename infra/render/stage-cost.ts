/**
 * docs/deploying.md's cost of a stage at rest: its alarms counted from the functions list (the
 * infra tests hold the count to the synthesized templates'), at CloudWatch's list price.
 */
import { SERVICE_FUNCTIONS } from '#functions/service-functions.ts';
import type { FunctionDeclaration } from '#shared/functions/function-declaration.ts';
import { markdownTable } from './markdown.ts';

/** The functions whose errors and throttles alarm: all but the deploy-time ones. */
export const WATCHED_FUNCTIONS = (SERVICE_FUNCTIONS as readonly FunctionDeclaration[]).filter(
  (fn) => fn.alarms !== false,
);

/** A deployed stage's alarms (malwareScanning on): two a function, and five of the stage. */
export const DEPLOYED_ALARMS = 2 * WATCHED_FUNCTIONS.length + 3 + 1 + 1;

/**
 * What the stage's dashboard draws of each function: errors, p99 duration, throttles,
 * concurrency and cold starts. CloudWatch's free tier covers three dashboards of at most 50
 * metrics each, so this one, far over 50, is billed whatever else the account has.
 */
export const DASHBOARD_METRICS_PER_FUNCTION = 5;
const DASHBOARD_FUNCTION_METRICS = DASHBOARD_METRICS_PER_FUNCTION * SERVICE_FUNCTIONS.length;

const SECRETS = 0.8;
/** CloudWatch's price of a custom dashboard a month. */
const DASHBOARD = 3;
/** The most the worker's idle pollers cost beyond SQS's free million. */
const POLLERS = 0.3;
/**
 * The access trail's sealer, which runs every 5 minutes with requests or none: 8,640 runs a
 * month, each a digest written and one read ($0.04 of PUTs), 16 queries a day of its window
 * ($0.01–0.02), a second or less of 512 MB ($0.06), and the listings that find the last digest:
 * one while there are under 1,000, about 15 a year on ($0.04–0.65).
 */
const SEALER = [0.1, 0.8] as const;
const dollars = (amount: number) => `$${amount.toFixed(2)}`;
const alarmCost = DEPLOYED_ALARMS / 10;
const atRest = SECRETS + alarmCost + DASHBOARD + SEALER[0];
const total = `**≈ ${dollars(atRest)}–${(atRest + POLLERS + SEALER[1] - SEALER[0]).toFixed(2)}**`;

/** The table: production and development cost the same, at the defaults. */
export const stageCostTable = (): string =>
  markdownTable(
    ['Item', 'production', 'development', 'Why'],
    [
      ['Secrets Manager, 2 secrets', dollars(SECRETS), dollars(SECRETS), '$0.40 a secret a month'],
      [
        `CloudWatch alarms, ${String(DEPLOYED_ALARMS)}`,
        dollars(alarmCost),
        dollars(alarmCost),
        `$0.10 an alarm a month (${String(WATCHED_FUNCTIONS.length)} functions × 2, 3 dead-letter queues, the API’s 5xx, any threat found)`,
      ],
      [
        'CloudWatch dashboard',
        dollars(DASHBOARD),
        dollars(DASHBOARD),
        `$3 a dashboard a month: the free tier's three dashboards reference at most 50 metrics each, and this one draws ${String(DASHBOARD_FUNCTION_METRICS)} for its ${String(SERVICE_FUNCTIONS.length)} functions alone (errors, p99 duration, throttles, concurrency, cold starts)`,
      ],
      [
        'GuardDuty Malware Protection for S3',
        '$0',
        '$0',
        'by use only: $0.09 a GB scanned, $0.215 per 1,000 objects ([what scanning costs](#what-scanning-costs))',
      ],
      [
        "SQS pollers of the worker's event source",
        `$0–${POLLERS.toFixed(2)}`,
        `$0–${POLLERS.toFixed(2)}`,
        "Lambda long-polls even an idle queue (a few 20 s polls a minute per poller): some hundreds of thousands of requests a month, mostly inside SQS's free million, $0.40 a million beyond",
      ],
      [
        "The access trail's sealer",
        `$${SEALER.map((amount) => amount.toFixed(2)).join('–')}`,
        `$${SEALER.map((amount) => amount.toFixed(2)).join('–')}`,
        'every 5 minutes, requests or none: a digest written and read, the queries of its window, the run, and the listings that find the last digest, more as they grow (about 15 after a year) ([the digests](#the-access-trails-digests))',
      ],
      [
        'DynamoDB, S3, Lambda, API Gateway, SNS, Logs',
        '$0',
        '$0',
        'on demand: nothing without requests; storage is $0.25/GB (table), $0.023/GB (objects)',
      ],
      [
        '**Total**',
        total,
        total,
        'plus storage, point-in-time recovery ($0.20/GB) and old object versions as data grows',
      ],
    ],
  );
