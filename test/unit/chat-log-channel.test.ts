import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { asTerminalText, ChatLogChannel } from '#infra/local/adapters/chat-log-channel.ts';
import { submissionMessage } from '#shared/notifications/chat-message.ts';
import { newSubmissionNotification } from '#shared/notifications/submission-notification.ts';

const dir = await mkdtemp(join(tmpdir(), 'chat-log-'));
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The note a user sent: an attempt to rewrite the developer's terminal. */
const HOSTILE_NOTE = 'ok\u001b[2K\r[chat] == fake line ==\u001b]0;pwned\u0007';

describe("the local chat channel prints a user's note, never obeys it", () => {
  it('shows terminal control characters as their escapes, line breaks kept', async () => {
    const printed: string[] = [];
    const channel = new ChatLogChannel(join(dir, 'chat.jsonl'), (text) => printed.push(text));
    const message = submissionMessage(
      newSubmissionNotification({
        userId: 7,
        notificationId: '00000000-0000-4000-8000-000000000000',
        files: [{ id: 1, name: 'a.pdf', type: 'deck', size: 10 }],
        fundName: 'F',
        message: `${HOSTILE_NOTE}\nsecond line`,
        at: new Date('2026-11-21T10:00:00.000Z'),
      }),
    );
    expect(await channel.post(message)).toEqual({ kind: 'delivered' });
    const [text = ''] = printed;
    expect(text.replace(/\n/g, '')).not.toMatch(/\p{Cc}/u);
    expect(text).toContain(
      '[chat] ok\\u001b[2K\\u000d[chat] == fake line ==\\u001b]0;pwned\\u0007\n[chat] second line',
    );
    // The log file keeps the message as the webhook would get it, escaped as JSON.
    const logged = JSON.parse(await readFile(join(dir, 'chat.jsonl'), 'utf8')) as unknown;
    expect(JSON.stringify(logged)).toContain(JSON.stringify(HOSTILE_NOTE).slice(1, -1));
  });

  it.each([
    ['\u0000', '\\u0000'],
    ['\t', '\t'],
    ['\u007f', '\\u007f'],
    ['\u009b', '\\u009b'],
    ['\u202e', '\\u202e'],
    ['é – 😀', 'é – 😀'],
  ])('%j is shown as %s', (char, shown) => {
    expect(asTerminalText(`a${char}b`)).toBe(`a${shown}b`);
  });
});
