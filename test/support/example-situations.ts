/**
 * What the situations that make a route's examples real answers are written with, in its
 * function's file of route facts (`test/routes/<function folder>.ts`, `examples`), and what
 * they share. `test/e2e/openapi-examples.test.ts` runs them on one local stage and holds every
 * example against the answer its situation got.
 */
import { expect } from 'vitest';
import { DEAL_FILE_EXAMPLE, USER_FILE_EXAMPLE } from '#shared/api/examples.ts';
import { API_OPERATIONS, type RouteKey } from '#functions/service-functions.ts';
import { dealFile, seedDeals } from './deal-fixtures.ts';
import { eventually } from './eventually.ts';
import type { FaultAnswer, ProxiedCall } from './fault-proxy.ts';
import type { HoldingProxy } from './holding-proxy.ts';
import type { TestStage } from './test-stage.ts';

/** What was sent for an answer, when a request or parameter example is held against it. */
export interface Sent {
  readonly body?: unknown;
  readonly parameters?: Readonly<Record<string, unknown>>;
}

/** A real answer, and what was sent for it. */
export interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly mediaType: string | undefined;
  readonly body: unknown;
  readonly sent?: Sent;
}

/**
 * `<route key> <status>`: the answer every example of that status is held against; with a
 * media type or `header <name>` after it, the one that example alone is held against.
 */
export type SituationKey = `${RouteKey} ${number}` | `${RouteKey} ${number} ${string}`;

/** What a situation is given: the stage, and what the situations share on it. */
export interface SituationKit {
  readonly stage: TestStage;
  /** A request as `as` (no token without one) and its answer; a redirect is not followed. */
  call(
    method: string,
    path: string,
    init?: RequestInit & { as?: number; sent?: Sent },
  ): Promise<Answer>;
  /** A user no other situation acts as: none of their files, allowance or quota is shared. */
  newUser(): number;
  /** A group no other situation uses. */
  newGroup(): number;
  /**
   * Another situation's answer, once it has it: one of this phase or an earlier one. A
   * situation that builds on what another made (the file an upload stored) waits for it here.
   */
  answer(key: SituationKey): Promise<Answer>;
  /** From now on, DynamoDB answers the calls `rule` picks as it says (the others go through). */
  failDynamoDb(rule: (call: ProxiedCall) => FaultAnswer | undefined): void;
  /** The dependencies' calls, held on the way (one `alone` situation at a time holds them). */
  readonly holds: { readonly dynamodb: HoldingProxy; readonly s3: HoldingProxy };
}

export type Situation = (kit: SituationKit) => Promise<Answer>;

/**
 * A function's situations, by the answer each gives, in the phase it runs in. The phases run
 * one after the other; each waits for the one before to end.
 */
export interface DeclaredSituations<Key extends string> {
  /**
   * Before the others: the examples' data made and read as the examples show it, before any
   * other situation changes it (the owner's one file, listed alone and not yet archived).
   */
  readonly first?: Partial<Record<Key, Situation>>;
  /** Beside every other situation: most of them. */
  readonly together?: Partial<Record<Key, Situation>>;
  /**
   * One at a time, in the functions list's order, after the others and after the answers the
   * test derives itself: a situation that holds a dependency's calls, or takes away what the
   * others read.
   */
  readonly alone?: Partial<Record<Key, Situation>>;
  /** Examples the local stage cannot give, each with where its real counterpart is checked. */
  readonly elsewhere?: Partial<Record<Key, string>>;
}

/** The answer of `response`, with what was sent for it. */
export async function answerOf(response: Response, sent?: Sent): Promise<Answer> {
  const mediaType = response.headers.get('content-type')?.split(';')[0]?.trim();
  const bytes = Buffer.from(await response.arrayBuffer());
  const body =
    mediaType === 'application/json'
      ? (JSON.parse(bytes.toString('utf8')) as unknown)
      : mediaType?.startsWith('text/') === true
        ? bytes.toString('utf8')
        : undefined;
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    mediaType,
    body,
    ...(sent === undefined ? {} : { sent }),
  };
}

export const json = (body: unknown): RequestInit => ({
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** A route's request example: "Try it out" starts from it. */
export const requestExample = (key: RouteKey): unknown => API_OPERATIONS[key].requestExample;

/** The id in an answer's body: of the file stored, the upload started. */
export const idIn = (answer: Answer): number => (answer.body as { id: number }).id;

/*
 * The examples' data, as their parameters name it: the owner of the examples' files, an editor
 * of the examples' group; its deal and the deal's one file; and a viewer of the group.
 */
export const EXAMPLE_OWNER = USER_FILE_EXAMPLE.user_id;
export const EXAMPLE_GROUP = 1;
export const EXAMPLE_DEAL = 3;
export const EXAMPLE_DEAL_FILE = 6;
export const EXAMPLE_VIEWER = 23;

/** A file's path in the examples' deal of `group`: the example deal file's by default. */
export const exampleDealFilePath = (group = EXAMPLE_GROUP, file = EXAMPLE_DEAL_FILE) =>
  `/api/v1/group/${String(group)}/deal/${String(EXAMPLE_DEAL)}/file/${String(file)}`;

/** The example deal file, as it is stored in `group`'s deal, or under another id. */
export function exampleDealFile(group: number, id = EXAMPLE_DEAL_FILE) {
  const { created_at: createdAt, updated_at: updatedAt, name, type } = DEAL_FILE_EXAMPLE;
  return dealFile(group, EXAMPLE_DEAL, id, {
    name: name ?? '',
    type: type ?? null,
    createdAt: createdAt ?? '',
    updatedAt: updatedAt ?? null,
  });
}

/** The examples' group, its members, its deal and the deal's file, before any situation. */
export async function seedExampleData(stage: TestStage): Promise<void> {
  await seedDeals(stage, {
    groups: [EXAMPLE_GROUP],
    members: [
      { groupId: EXAMPLE_GROUP, userId: EXAMPLE_OWNER, role: 'editor' },
      { groupId: EXAMPLE_GROUP, userId: EXAMPLE_VIEWER, role: 'viewer' },
    ],
    deals: [{ groupId: EXAMPLE_GROUP, dealId: EXAMPLE_DEAL }],
    files: [exampleDealFile(EXAMPLE_GROUP)],
  });
}

/** What DynamoDB answers a transaction whose conditions failed. */
const CONDITIONS_FAILED: FaultAnswer = {
  status: 400,
  contentType: 'application/x-amz-json-1.0',
  body: JSON.stringify({
    __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
    message:
      'Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed, ConditionalCheckFailed, ConditionalCheckFailed]',
    CancellationReasons: [1, 2, 3].map(() => ({
      Code: 'ConditionalCheckFailed',
      Message: 'The conditional request failed',
    })),
  }),
};

/**
 * The example deal file in a group of its own, the owner its editor, whose writes DynamoDB
 * keeps refusing, as under concurrent edits: its path.
 */
export async function contestedDealFile(kit: SituationKit): Promise<string> {
  const group = kit.newGroup();
  await seedDeals(kit.stage, {
    groups: [group],
    members: [{ groupId: group, userId: EXAMPLE_OWNER, role: 'editor' }],
    deals: [{ groupId: group, dealId: EXAMPLE_DEAL }],
    files: [exampleDealFile(group)],
  });
  kit.failDynamoDb((call) =>
    call.operation === 'TransactWriteItems' && call.body.includes(`"GROUP#${String(group)}#`)
      ? CONDITIONS_FAILED
      : undefined,
  );
  return exampleDealFilePath(group);
}

/** A user whose usage is at the files limit the stage allows (10,000), as if all uploaded. */
export async function userAtFileLimit(kit: SituationKit): Promise<number> {
  const user = kit.newUser();
  await kit.stage.put([
    {
      PK: `USER#${String(user)}`,
      SK: 'USAGE',
      entity: 'Usage',
      held_files: 10_000,
      held_bytes: 10_000 * USER_FILE_EXAMPLE.filesize,
      reserved_files: 0,
      reserved_bytes: 0,
      version: 1,
      counted_at: new Date().toISOString(),
    },
  ]);
  return user;
}

const START_UPLOAD = '/api/v1/user/me/file/upload';
export const completeUpload = (id: number | string) => `${START_UPLOAD}/${String(id)}/complete`;

/** `POST /api/v1/user/me/file/upload` with `body` as `as`, the body kept as sent. */
export const startUpload = (kit: SituationKit, as: number, body: unknown): Promise<Answer> =>
  kit.call('POST', START_UPLOAD, { as, ...json(body), sent: { body } });

/** A direct upload's ticket, from its start's answer. */
export function ticketOf(answer: Answer) {
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body as { id: number; key: string; url: string; fields: Record<string, string> };
}

/** Until a call waits at `proxy`, then the answer of `second`; then every call released. */
export async function whileHeld(
  proxy: HoldingProxy,
  which: Parameters<HoldingProxy['hold']>[0],
  first: () => Promise<Response>,
  second: () => Promise<Answer>,
): Promise<Answer> {
  proxy.hold(which);
  const held = first();
  try {
    await eventually(() => proxy.held() > 0 || undefined);
    return await second();
  } finally {
    proxy.release();
    await (await held).arrayBuffer();
  }
}
