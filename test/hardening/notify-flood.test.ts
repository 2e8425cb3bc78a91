import { beforeEach, describe, expect, it } from 'vitest';
import { toUserFileItem } from '#shared/storage/file-items.ts';
import { readEnvironment } from '#shared/config/environment.ts';
import { TOO_MANY_NOTIFICATIONS } from '#shared/notifications/notify-submission.ts';
import { eventually } from '#test/support/eventually.ts';
import { waitLimit } from '#test/support/wait-limit.ts';
import { useTestStage } from '#test/support/test-stage.ts';
import { type ReceivedPost, useWebhookReceiver } from '#test/support/webhook-receiver.ts';

/** The allowance and the channel's pace a stage has unless set: what is deployed. */
const DEFAULTS = readEnvironment(
  ['NOTIFY_BURST', 'NOTIFY_RATE_PER_MINUTE', 'CHAT_POSTS_PER_SECOND'],
  {},
);
const BURST = DEFAULTS.NOTIFY_BURST;
const TOKEN_SECONDS = 60 / DEFAULTS.NOTIFY_RATE_PER_MINUTE;
const POST_INTERVAL_MS = 1000 / DEFAULTS.CHAT_POSTS_PER_SECOND;
/** Long enough for a backlog of one burst to be posted at the channel's pace. */
const DRAINED_WITHIN = waitLimit(BURST * POST_INTERVAL_MS + 10_000);

const receiver = useWebhookReceiver();
const stage = useTestStage(() => ({
  chatWebhookUrl: receiver().url,
  settings: {
    NOTIFY_BURST: BURST,
    NOTIFY_RATE_PER_MINUTE: DEFAULTS.NOTIFY_RATE_PER_MINUTE,
    CHAT_POSTS_PER_SECOND: DEFAULTS.CHAT_POSTS_PER_SECOND,
  },
}));

const NOTIFY = '/api/v1/user/me/file/notify';
const REFUSED = { detail: TOO_MANY_NOTIFICATIONS };

const notify = (as: number, body: unknown, headers: Record<string, string> = {}) =>
  stage().request(NOTIFY, {
    method: 'POST',
    as,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

async function seedFile(userId: number, id: number) {
  await stage().put([
    toUserFileItem({
      userId,
      id,
      name: `${String(id)}.pdf`,
      type: 'deck',
      filesize: 10,
      createdAt: '2026-11-01T09:00:00.000Z',
      updatedAt: null,
      isArchived: false,
      location: null,
    }),
  ]);
}

/** "User 42" from the message's fallback text, "User 42 submitted 1 file". */
const sender = (post: ReceivedPost): string => {
  const { text } = post.payload as { text?: unknown };
  return typeof text === 'string' ? (text.split(' submitted')[0] ?? '') : '';
};
const postsOf = (userId: number) =>
  receiver().posts.filter((post) => sender(post) === `User ${String(userId)}`);
const recordsOf = async (userId: number) =>
  (await stage().items()).filter(
    (item) => item.entity === 'SubmissionNotification' && item.user_id === userId,
  );
const queueIdle = () =>
  eventually(
    () => stage().notifications.queue.messages().length === 0 || undefined,
    DRAINED_WITHIN,
  );

/**
 * Everything stored, but for how far each notification's delivery has got: the worker posts
 * the admitted ones meanwhile (on a busy machine, during a refusal), and a refused call
 * never touches them.
 */
async function storedBesidesDelivery() {
  const stored = await stage().stored();
  return {
    ...stored,
    items: stored.items.map((item) =>
      String(item.SK).startsWith('NOTIFICATION#') ? { PK: item.PK, SK: item.SK } : item,
    ),
  };
}

/** 25 calls at once from one user, all valid: the statuses, and the 202s' ids. */
async function flood(userId: number) {
  const responses = await Promise.all(
    Array.from({ length: 25 }, () => notify(userId, { file_ids: [userId] })),
  );
  const accepted: string[] = [];
  for (const response of responses.filter((r) => r.status === 202)) {
    accepted.push(((await response.json()) as { notification_id: string }).notification_id);
  }
  return { responses, accepted };
}

beforeEach(() => {
  receiver().reset();
});

/*
 * The first two tests count posts, each after the queue is idle; the last two count what is
 * recorded, and leave their backlog to be posted (or dropped at the stage's stop) meanwhile.
 */
describe('one user cannot flood the chat', () => {
  it('25 parallel calls: the burst is admitted, the rest get 429 with Retry-After, and nothing of theirs is recorded or queued', async () => {
    await seedFile(1101, 1101);
    const before = await stage().stored();
    const { responses, accepted } = await flood(1101);

    expect(accepted).toHaveLength(BURST);
    const refused = responses.filter((r) => r.status !== 202);
    expect(refused).toHaveLength(25 - BURST);
    for (const response of refused) {
      expect(response.status).toBe(429);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(await response.json()).toEqual(REFUSED);
      // Whole seconds until the next token, rounded up: about one token's time. Calls that
      // race read the clock milliseconds apart, so a late reader's wait may round up past it.
      const retryAfter = Number(response.headers.get('retry-after'));
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(TOKEN_SECONDS + 1);
    }

    // Recorded: the admitted calls' notifications, and nothing else at all.
    const records = await recordsOf(1101);
    expect(records.map((r) => r.notification_id).sort()).toEqual([...accepted].sort());
    const after = await stage().stored();
    const added = after.items.filter((item) => !before.items.some((b) => b.SK === item.SK));
    expect(added.map((item) => item.SK).sort()).toEqual(records.map((r) => r.SK).sort());
    expect(after.objects).toEqual(before.objects);
    // The sender's allowance is spent, in their own partition.
    const allowance = (await stage().items()).find(
      (item) => item.PK === 'USER#1101' && item.SK === 'LIMIT#notify',
    );
    expect(allowance).toMatchObject({ entity: 'TokenBucket' });

    // Queued: one message per admitted call, posted at the channel's pace.
    await queueIdle();
    const posts = postsOf(1101);
    expect(posts).toHaveLength(BURST);
    expect(stage().notifications.deadLetters.messages()).toHaveLength(0);
    // Slots are taken an interval apart; a post reaches the webhook some time after its slot,
    // and on a busy stage the first can be late by most of an interval, so one is allowed.
    const span = (posts.at(-1)?.at ?? 0) - (posts[0]?.at ?? 0);
    expect(span).toBeGreaterThanOrEqual((BURST - 2) * POST_INTERVAL_MS);
  });

  it("another user's notification goes out while the flood's backlog still waits", async () => {
    await seedFile(1102, 1102);
    await seedFile(1103, 1103);
    const { accepted } = await flood(1102);
    expect(accepted).toHaveLength(BURST);

    const quiet = await notify(1103, { file_ids: [1103] });
    expect(quiet.status).toBe(202);
    const floodPostedBefore = postsOf(1102).length;
    // The flood's backlog is still there when the quiet user's call is accepted.
    expect(BURST - floodPostedBefore).toBeGreaterThanOrEqual(2);

    const [quietPost] = await eventually(
      () => (postsOf(1103).length > 0 ? postsOf(1103) : undefined),
      DRAINED_WITHIN,
    );
    // At most the flood's message already in hand went first; the backlog waits its turn.
    const floodPostedFirst = postsOf(1102).filter((p) => p.at <= (quietPost?.at ?? 0)).length;
    expect(floodPostedFirst - floodPostedBefore).toBeLessThanOrEqual(1);
    expect(floodPostedFirst).toBeLessThan(BURST);
    await queueIdle();
    expect(postsOf(1102)).toHaveLength(BURST);
  });

  it('a replay of an Idempotency-Key spends nothing: it is answered while the allowance is spent', async () => {
    await seedFile(1104, 1104);
    const body = { file_ids: [1104] };
    const first: string[] = [];
    for (let i = 1; i <= BURST; i += 1) {
      const response = await notify(1104, body, { 'idempotency-key': `k-${String(i)}` });
      expect(response.status).toBe(202);
      first.push(((await response.json()) as { notification_id: string }).notification_id);
    }

    // A new key: refused, and nothing of it kept, not even its idempotency record.
    const before = await storedBesidesDelivery();
    const refused = await notify(1104, body, { 'idempotency-key': 'k-new' });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual(REFUSED);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await storedBesidesDelivery()).toEqual(before);

    // A replay: the first answer again, though the allowance is spent, and no new message.
    const replay = await notify(1104, body, { 'idempotency-key': 'k-1' });
    expect(replay.status).toBe(202);
    expect(((await replay.json()) as { notification_id: string }).notification_id).toBe(first[0]);
    expect((await recordsOf(1104)).map((r) => r.notification_id).sort()).toEqual(first.sort());
  });

  it("the caller's own mistakes spend nothing: after 404s and 422s the whole burst still goes through", async () => {
    await seedFile(1105, 1105);
    for (let i = 0; i < BURST + 2; i += 1) {
      expect((await notify(1105, { file_ids: [999_999] })).status).toBe(404);
      expect((await notify(1105, { file_ids: [] })).status).toBe(422);
    }
    const { accepted } = await flood(1105);
    expect(accepted).toHaveLength(BURST);
  });
});
