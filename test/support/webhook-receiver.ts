import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

/** One way to answer a post. */
interface ScriptedAnswer {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /**
   * Answer this much later: longer than the sender's timeout is no answer at all, and the post
   * is marked abandoned as soon as the sender hangs up.
   */
  readonly delayMs?: number;
}

export interface ReceivedPost {
  /** When it arrived (ms since the epoch). */
  readonly at: number;
  readonly headers: IncomingHttpHeaders;
  readonly payload: unknown;
  /** The status it was answered with; `abandoned` if the sender stopped waiting first. */
  answeredWith: number | 'abandoned' | undefined;
}

/**
 * A real HTTP server standing in for a Slack incoming webhook. It answers 200 `ok` unless
 * told otherwise: `answer(...)` queues answers for the next posts, `answerAlways` sets the
 * answer after those.
 */
export interface WebhookReceiver {
  readonly url: string;
  /** Every post so far, in order of arrival. */
  readonly posts: readonly ReceivedPost[];
  /**
   * The posts it answered with a 2xx: the messages a channel would show. (A post its sender
   * gave up on is not among them, as Slack posts nothing for a request it could not finish.)
   */
  delivered(): ReceivedPost[];
  answer(...answers: ScriptedAnswer[]): void;
  answerAlways(answer: ScriptedAnswer): void;
  /** Forgets posts and answers. */
  reset(): void;
  close(): Promise<void>;
}

const OK: ScriptedAnswer = { status: 200, body: 'ok' };

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const posts: ReceivedPost[] = [];
  let queued: ScriptedAnswer[] = [];
  let always = OK;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const answer = queued.shift() ?? always;
      const text = Buffer.concat(chunks).toString('utf8');
      let payload: unknown;
      try {
        payload = JSON.parse(text);
      } catch {
        payload = text;
      }
      const post: ReceivedPost = {
        at: Date.now(),
        headers: request.headers,
        payload,
        answeredWith: undefined,
      };
      posts.push(post);
      const timer = setTimeout(() => {
        post.answeredWith = answer.status;
        response.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
        response.end(answer.body ?? '');
      }, answer.delayMs ?? 0);
      // Seen as soon as the sender gives up, however long the answer was to take.
      response.once('close', () => {
        if (post.answeredWith !== undefined) return;
        clearTimeout(timer);
        post.answeredWith = 'abandoned';
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/services/T000/B000/secret`,
    posts,
    delivered: () =>
      posts.filter(
        (p) => typeof p.answeredWith === 'number' && p.answeredWith >= 200 && p.answeredWith < 300,
      ),
    answer: (...answers) => {
      queued.push(...answers);
    },
    answerAlways: (answer) => {
      always = answer;
    },
    reset: () => {
      posts.length = 0;
      queued = [];
      always = OK;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
    },
  };
}

/**
 * A receiver for the whole test file: started before its tests (and before a test stage
 * registered after it, which can then post to it), closed after them. Call the getter in a
 * hook or a test.
 */
export function useWebhookReceiver(): () => WebhookReceiver {
  let receiver: WebhookReceiver | undefined;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });
  return () => {
    if (receiver === undefined) throw new Error('The webhook receiver starts in beforeAll');
    return receiver;
  };
}
