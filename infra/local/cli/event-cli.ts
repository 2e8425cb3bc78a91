/**
 * `npm run --silent event -- <kind> ...`: prints an event as AWS would hand it to one of our
 * functions, for `npm run invoke`; as `sam local generate-event` does.
 */
import { readFile } from 'node:fs/promises';
import { decodeJwt } from 'jose';
import { API_ROUTES } from '#functions/service-functions.ts';
import { createRouteMatcher } from '#shared/api/route-matcher.ts';
import { routeKey } from '#shared/api/routes.ts';
import { parseUserId } from '#shared/http/user-id.ts';
import { splitTarget } from '../gateway/api-gateway-event.ts';
import { AmbiguousDataFolder, chooseDataFolder, stageHome } from '../stage/data-folder.ts';
import { loadIdentityProvider } from '../gateway/identity-provider.ts';
import { toEventClaims } from '../gateway/jwt-authorizer.ts';
import { LOCAL_BUCKET } from '../object-store/local-bucket.ts';
import { parseCommandLine } from '#infra/command-line.ts';
import { httpEvent, s3PutEvent, snsAlarmEvent, sqsEvent } from './sample-events.ts';
import { runningStage } from '../stage/stage-lock.ts';

const USAGE = `usage: npm run --silent event -- <kind> [options]

Prints an event, as AWS hands it to a function, on stdout; pipe it to \`npm run invoke\`.

kinds:
  http <METHOD> <path> [--user <id>] [--body <json>|@<file>] [--header <name:value>]...
      API Gateway's payload 2.0 event for one of the routes (another path or method is
      refused, with the list), as the local gateway builds it: the route and path
      parameters from the route table, a bearer token and its JWT claims for --user (from
      the local identity provider), lower-cased headers, and the body as text or base64.
      A --body given inline must be JSON and is sent as application/json unless a
      content-type header says otherwise; @<file> sends the file's bytes.
  s3-put --key <key> --size <bytes>
      An S3 ObjectCreated:Put notification for that object of the stage's bucket.
  sqs --body <json> [--body <json>]...
      An SQS event as Lambda delivers it to the notification worker, a record per --body.
  sns-alarm [--alarm <name>] [--state ALARM|OK|INSUFFICIENT_DATA]
      A CloudWatch alarm's change of state (to ALARM by default) as SNS delivers it to the
      alarm topic's subscriber, PostAlarm.

The local identity provider and the bucket are those of LOCAL_DATA_DIR, else of the one
running \`npm start\`, else .data/. The manual: docs/local-stage.md
`;

function fail(message: string): never {
  process.stderr.write(`event: ${message}\n\n${USAGE}`);
  process.exit(2);
}

const matchRoute = createRouteMatcher(API_ROUTES);
const KEY_WIDTH = Math.max(...API_ROUTES.map((route) => routeKey(route).length)) + 2;
const ROUTE_LIST = API_ROUTES.map(
  (route) => `  ${routeKey(route).padEnd(KEY_WIDTH)}${route.functionId}`,
).join('\n');
const METHODS = [...new Set(API_ROUTES.map((route) => route.method))];

/**
 * A request no route takes is refused, with the routes: API Gateway would hand it to
 * `$default`, but this command makes events for invoking a route's function, and an event
 * for a mistyped path or method would reach the wrong one.
 */
function refuseUnrouted(method: string, target: string): void {
  const { rawPath } = splitTarget(target);
  if (matchRoute(method, rawPath).kind === 'route') return;
  const others = METHODS.filter((other) => matchRoute(other, rawPath).kind === 'route');
  process.stderr.write(
    `event: no route takes ${method} ${rawPath}` +
      (others.length === 0 ? '' : `; its path has ${others.join(', ')}`) +
      '. API Gateway would send it to the $default route (the RouteNotFound function); ' +
      `this command makes events for these routes:\n\n${ROUTE_LIST}\n`,
  );
  process.exit(2);
}

const { values, positionals } = parseCommandLine(
  {
    user: { type: 'string' },
    body: { type: 'string', multiple: true },
    header: { type: 'string', multiple: true },
    key: { type: 'string' },
    size: { type: 'string' },
    alarm: { type: 'string' },
    state: { type: 'string' },
  },
  USAGE,
  fail,
);
const [kind, ...rest] = positionals;
/** Options this kind does not take are an error, not ignored. */
const only = (allowed: readonly (keyof typeof values)[]) => {
  const extra = (Object.keys(values) as (keyof typeof values)[]).filter(
    (name) => values[name] !== undefined && !allowed.includes(name),
  );
  if (extra.length > 0) fail(`${kind ?? ''} takes no --${extra.join(', --')}`);
};

async function dataFolder(): Promise<string> {
  try {
    return (await chooseDataFolder(process.env, stageHome(process.env))).dataDir;
  } catch (error) {
    if (error instanceof AmbiguousDataFolder) fail(error.message);
    throw error;
  }
}

async function http(): Promise<unknown> {
  only(['user', 'body', 'header']);
  const [method, target, ...extra] = rest;
  if (method === undefined || target === undefined) fail('http needs a method and a path');
  if (extra.length > 0) fail(`unexpected argument "${extra.join(' ')}"`);
  if (!/^[A-Za-z]+$/.test(method)) fail(`"${method}" is not an HTTP method`);
  if (!target.startsWith('/')) fail(`the path must start with "/", got "${target}"`);
  const headers: [string, string][] = (values.header ?? []).map((header) => {
    const colon = header.indexOf(':');
    if (colon <= 0) fail(`--header must be <name:value>, got "${header}"`);
    return [header.slice(0, colon).trim(), header.slice(colon + 1).trim()];
  });
  const bodies = values.body ?? [];
  if (bodies.length > 1) fail('http takes one --body');
  const given = bodies[0];
  let body: Buffer | undefined;
  if (given?.startsWith('@') === true) {
    const file = given.slice(1);
    body = await readFile(file).catch(() => fail(`cannot read the body file "${file}"`));
  } else if (given !== undefined) {
    try {
      JSON.parse(given);
    } catch {
      fail(`--body must be JSON (or @<file>), got ${given}`);
    }
    body = Buffer.from(given);
    if (!headers.some(([name]) => name.toLowerCase() === 'content-type')) {
      headers.push(['content-type', 'application/json']);
    }
  }
  refuseUnrouted(method.toUpperCase(), target);
  const dataDir = await dataFolder();
  const stage = await runningStage(dataDir);
  let claims;
  if (values.user !== undefined) {
    const userId =
      parseUserId(values.user) ?? fail(`--user must be a positive integer, got "${values.user}"`);
    const token = await (await loadIdentityProvider(dataDir)).issueToken({ userId });
    headers.unshift(['authorization', `Bearer ${token}`]);
    claims = toEventClaims(decodeJwt(token));
  }
  return httpEvent({
    method,
    target,
    host: new URL(stage?.url ?? 'http://localhost:8000').host,
    headers,
    ...(claims === undefined ? {} : { claims }),
    ...(body === undefined ? {} : { body }),
  });
}

async function s3Put(): Promise<unknown> {
  only(['key', 'size']);
  if (rest.length > 0) fail(`unexpected argument "${rest.join(' ')}"`);
  const key = values.key ?? fail('s3-put needs --key');
  const size = Number(values.size ?? fail('s3-put needs --size'));
  if (!Number.isSafeInteger(size) || size < 0)
    fail(`--size must be bytes, got "${values.size ?? ''}"`);
  const stage = await runningStage(await dataFolder());
  return s3PutEvent({ bucket: stage?.bucket ?? LOCAL_BUCKET, key, size });
}

function sqs(): unknown {
  only(['body']);
  if (rest.length > 0) fail(`unexpected argument "${rest.join(' ')}"`);
  const bodies = values.body ?? fail('sqs needs at least one --body');
  for (const body of bodies) {
    try {
      JSON.parse(body);
    } catch {
      fail(`--body must be JSON, got ${body}`);
    }
  }
  return sqsEvent({ queueName: 'notifications', bodies });
}

const ALARM_STATES = ['ALARM', 'OK', 'INSUFFICIENT_DATA'] as const;

function snsAlarm(): unknown {
  only(['alarm', 'state']);
  if (rest.length > 0) fail(`unexpected argument "${rest.join(' ')}"`);
  const state = values.state ?? 'ALARM';
  const newState = ALARM_STATES.find((known) => known === state);
  if (newState === undefined) fail(`--state must be ${ALARM_STATES.join(', ')}, got "${state}"`);
  return snsAlarmEvent({
    alarmName: values.alarm ?? 'FileService-local-api-AlarmsApi5xx',
    newState,
    oldState: newState === 'OK' ? 'ALARM' : 'OK',
  });
}

const KINDS: Record<string, () => unknown> = { http, 's3-put': s3Put, sqs, 'sns-alarm': snsAlarm };
const make = kind === undefined ? fail('name a kind of event') : KINDS[kind];
if (make === undefined) {
  fail(`unknown kind "${kind}"; the kinds are: ${Object.keys(KINDS).join(', ')}`);
}
process.stdout.write(`${JSON.stringify(await make(), null, 2)}\n`);
