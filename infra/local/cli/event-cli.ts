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
import { httpEvent, splitTarget } from '../gateway/api-gateway-event.ts';
import { dataFolder, LOCAL_BUCKET } from '../stage/data-folder.ts';
import { loadIdentityProvider } from '../gateway/identity-provider.ts';
import { toEventClaims } from '../gateway/jwt-authorizer.ts';
import { type CommandLineIo, exitCodeOf, exitWith, parseCommandLine } from '#infra/command-line.ts';
import { s3PutEvent, snsAlarmEvent, sqsEvent } from './sample-events.ts';
import { runningStage } from '../stage/stage-lock.ts';

const USAGE = `usage: npm run --silent event -- <kind> [options]

Prints an event as AWS hands it to a function; pipe it to \`npm run invoke\`. The kinds:
  http <METHOD> <path> [--user <id>] [--body <json>|@<file>] [--header <name:value>]...
      the gateway's event for a route, with a token for --user; an inline --body is JSON
  s3-put --key <key> --size <bytes>     S3's ObjectCreated:Put for the stage's bucket
  sqs --body <json>...                  the notification worker's SQS event
  sns-alarm [--alarm <name>] [--state ALARM|OK|INSUFFICIENT_DATA]   PostAlarm's SNS event

The stage is LOCAL_DATA_DIR's, else .data/'s.
The manual: docs/local-stage.md
`;

const [one, many] = [{ type: 'string' }, { type: 'string', multiple: true }] as const;
const OPTIONS = {
  ...{ user: one, key: one, size: one, body: many, header: many, alarm: one, state: one },
};

/** One command line: its kind, its options and the words after the kind. */
interface EventRequest {
  readonly kind: string;
  readonly values: ReturnType<typeof parseCommandLine<typeof OPTIONS>>['values'];
  readonly rest: readonly string[];
  readonly io: CommandLineIo;
  /** A usage error: exit 2, with the usage. */
  readonly fail: (message: string) => never;
}

/** The event CLI's run: 0 with the event printed, 2 on bad usage. */
export function runEvent(args: readonly string[], io: CommandLineIo): Promise<number> {
  return exitCodeOf(async () => {
    const fail = (message: string) => exitWith(io, `event: ${message}\n\n${USAGE}`);
    const { values, positionals } = parseCommandLine(OPTIONS, USAGE, fail, { args, io });
    const [kind = fail('name a kind of event'), ...rest] = positionals;
    const make =
      (Object.hasOwn(KINDS, kind) ? KINDS[kind] : undefined) ??
      fail(`unknown kind "${kind}"; the kinds are: ${Object.keys(KINDS).join(', ')}`);
    const event = await make({ kind, values, rest, io, fail });
    io.stdout.write(`${JSON.stringify(event, null, 2)}\n`);
    return 0;
  });
}

/** Options and arguments this kind does not take are an error, not ignored. */
function takes(
  { kind, values, rest, fail }: EventRequest,
  allowed: readonly (keyof typeof OPTIONS)[],
  argumentCount = 0,
): readonly string[] {
  const extra = (Object.keys(values) as (keyof typeof OPTIONS)[]).filter(
    (name) => values[name] !== undefined && !allowed.includes(name),
  );
  if (extra.length > 0) fail(`${kind} takes no --${extra.join(', --')}`);
  if (rest.length > argumentCount) {
    fail(`unexpected argument "${rest.slice(argumentCount).join(' ')}"`);
  }
  return rest;
}

function checkJson({ kind, fail }: EventRequest, text: string): void {
  try {
    JSON.parse(text);
  } catch {
    fail(`--body must be JSON${kind === 'http' ? ' (or @<file>)' : ''}, got ${text}`);
  }
}

/** A request no route takes: API Gateway's `$default` would take it, but that event is a typo. */
function refuseUnrouted({ fail }: EventRequest, method: string, target: string): void {
  const match = createRouteMatcher(API_ROUTES);
  const { rawPath } = splitTarget(target);
  if (match(method, rawPath).kind === 'route') return;
  const width = Math.max(...API_ROUTES.map((route) => routeKey(route).length)) + 2;
  const list = API_ROUTES.map((route) => `  ${routeKey(route).padEnd(width)}${route.functionId}`);
  fail(`no route takes ${method} ${rawPath}; the routes:\n\n${list.join('\n')}`);
}

/** The --body of an http event: a file's bytes, or JSON sent as such. */
async function httpBody(
  request: EventRequest,
  headers: [string, string][],
): Promise<Buffer | undefined> {
  const [given, ...more] = request.values.body ?? [];
  if (more.length > 0) request.fail('http takes one --body');
  if (given === undefined) return undefined;
  if (given.startsWith('@')) {
    const file = given.slice(1);
    return readFile(file).catch(() => request.fail(`cannot read the body file "${file}"`));
  }
  checkJson(request, given);
  if (!headers.some(([name]) => name.toLowerCase() === 'content-type')) {
    headers.push(['content-type', 'application/json']);
  }
  return Buffer.from(given);
}

async function http(request: EventRequest): Promise<unknown> {
  const { values } = request;
  const [method, target] = takes(request, ['user', 'body', 'header'], 2);
  if (method === undefined || target === undefined) request.fail('http needs a method and a path');
  if (!/^[A-Za-z]+$/.test(method)) request.fail(`"${method}" is not an HTTP method`);
  if (!target.startsWith('/')) request.fail(`the path must start with "/", got "${target}"`);
  const headers = (values.header ?? []).map((header): [string, string] => {
    const colon = header.indexOf(':');
    if (colon <= 0) request.fail(`--header must be <name:value>, got "${header}"`);
    return [header.slice(0, colon).trim(), header.slice(colon + 1).trim()];
  });
  const body = await httpBody(request, headers);
  refuseUnrouted(request, method.toUpperCase(), target);
  const dataDir = dataFolder(request.io.env);
  const stage = await runningStage(dataDir);
  let claims;
  if (values.user !== undefined) {
    const userId =
      parseUserId(values.user) ??
      request.fail(`--user must be a positive integer, got "${values.user}"`);
    const token = await (await loadIdentityProvider(dataDir)).issueToken({ userId });
    headers.unshift(['authorization', `Bearer ${token}`]);
    claims = toEventClaims(decodeJwt(token));
  }
  const host = new URL(stage?.url ?? 'http://localhost:8000').host;
  return httpEvent({
    ...{ method, target, host, headers },
    ...(claims && { claims }),
    ...(body && { body }),
  });
}

async function s3Put(request: EventRequest): Promise<unknown> {
  const { values } = request;
  takes(request, ['key', 'size']);
  const key = values.key ?? request.fail('s3-put needs --key');
  const size = Number(values.size ?? request.fail('s3-put needs --size'));
  if (!Number.isSafeInteger(size) || size < 0) {
    request.fail(`--size must be bytes, got "${values.size ?? ''}"`);
  }
  const stage = await runningStage(dataFolder(request.io.env));
  return s3PutEvent({ bucket: stage?.bucket ?? LOCAL_BUCKET, key, size });
}

function sqs(request: EventRequest): unknown {
  takes(request, ['body']);
  const bodies = request.values.body ?? request.fail('sqs needs at least one --body');
  for (const body of bodies) checkJson(request, body);
  return sqsEvent({ queueName: 'notifications', bodies });
}

function snsAlarm(request: EventRequest): unknown {
  const { values } = request;
  takes(request, ['alarm', 'state']);
  const states = ['ALARM', 'OK', 'INSUFFICIENT_DATA'] as const;
  const newState = states.find((known) => known === (values.state ?? 'ALARM'));
  if (newState === undefined) {
    request.fail(`--state must be ${states.join(', ')}, got "${values.state ?? ''}"`);
  }
  const alarmName = values.alarm ?? 'FileService-local-api-AlarmsApi5xx';
  return snsAlarmEvent({ alarmName, newState, oldState: newState === 'OK' ? 'ALARM' : 'OK' });
}

type Kind = (request: EventRequest) => unknown;
const KINDS: Record<string, Kind> = { http, 's3-put': s3Put, sqs, 'sns-alarm': snsAlarm };

if (import.meta.main) process.exitCode = await runEvent(process.argv.slice(2), process);
