import { describe, expect, it } from 'vitest';
import { messageAsText } from '#infra/local/adapters/chat-log-channel.ts';
import {
  type Block,
  escapeMrkdwn,
  FILES_LISTED,
  humanSize,
  SLACK_LIMITS,
  submissionMessage,
} from '#shared/notifications/chat-message.ts';
import {
  newSubmissionNotification,
  type SubmissionNotification,
} from '#shared/notifications/submission-notification.ts';
import {
  MAX_FILES_PER_NOTIFICATION,
  MAX_FUND_NAME_LENGTH,
  MAX_NOTIFY_MESSAGE_LENGTH,
} from '#shared/notifications/api/notify-submission.ts';

const notification = (overrides: Partial<SubmissionNotification>): SubmissionNotification => ({
  ...newSubmissionNotification({
    userId: 7,
    notificationId: '00000000-0000-4000-8000-000000000000',
    files: [{ id: 1, name: 'a.pdf', type: 'deck', size: 10 }],
    fundName: null,
    message: null,
    at: new Date('2026-11-21T10:00:00.000Z'),
  }),
  ...overrides,
});

const textsOf = (block: Block) =>
  block.type === 'section'
    ? [...(block.text === undefined ? [] : [block.text]), ...(block.fields ?? [])]
    : block.type === 'context'
      ? block.elements
      : block.type === 'header'
        ? [block.text]
        : [];

/** Every Block Kit limit the message must keep, whatever it carries. */
function expectWithinSlackLimits(blocks: readonly Block[]) {
  expect(blocks.length).toBeLessThanOrEqual(SLACK_LIMITS.blocks);
  for (const block of blocks) {
    if (block.type === 'header') {
      expect(block.text.text.length).toBeLessThanOrEqual(SLACK_LIMITS.headerText);
    }
    if (block.type === 'section') {
      expect(block.text?.text.length ?? 0).toBeLessThanOrEqual(SLACK_LIMITS.sectionText);
      expect(block.fields?.length ?? 0).toBeLessThanOrEqual(SLACK_LIMITS.sectionFields);
      for (const field of block.fields ?? []) {
        expect(field.text.length).toBeLessThanOrEqual(SLACK_LIMITS.fieldText);
      }
    }
    if (block.type === 'context') {
      expect(block.elements.length).toBeLessThanOrEqual(SLACK_LIMITS.contextElements);
    }
    for (const text of textsOf(block)) expect(text.text.length).toBeGreaterThan(0);
  }
}

describe('submissionMessage', () => {
  it('keeps every Slack limit at the worst the request schema lets through', () => {
    // Names of 255 characters that each grow fivefold when escaped, or are outside the BMP.
    const files = Array.from({ length: MAX_FILES_PER_NOTIFICATION }, (_, i) => ({
      id: i + 1,
      name: i % 2 === 0 ? '&'.repeat(255) : '😀'.repeat(255),
      type: null,
      size: Number.MAX_SAFE_INTEGER,
    }));
    const message = submissionMessage(
      notification({
        files,
        fundName: '<'.repeat(MAX_FUND_NAME_LENGTH),
        message: '😀'.repeat(MAX_NOTIFY_MESSAGE_LENGTH),
      }),
    );
    expectWithinSlackLimits(message.blocks);
    // The note is split, never cut: every character of it is in the message.
    const note = message.blocks
      .filter((b) => b.type === 'section' && b.text?.type === 'plain_text')
      .map((b) => (b.type === 'section' ? (b.text?.text ?? '') : ''))
      .join('');
    expect(note).toBe('😀'.repeat(MAX_NOTIFY_MESSAGE_LENGTH));
    expect(JSON.stringify(message).match(/<</)).toBeNull();
  });

  it(`names the first ${FILES_LISTED} files and counts the rest`, () => {
    const files = Array.from({ length: 23 }, (_, i) => ({
      id: i + 1,
      name: `f${i + 1}`,
      type: i < 21 ? ('deck' as const) : null,
      size: 1_500_000,
    }));
    const { blocks } = submissionMessage(notification({ files }));
    expect(JSON.stringify(blocks)).toContain('*f20*');
    expect(JSON.stringify(blocks)).not.toContain('*f21*');
    expect(blocks.at(-1)).toEqual({
      type: 'context',
      elements: [
        { type: 'mrkdwn', text: '…and 3 more files: 1 Deck, 2 No type (4.5 MB)', verbatim: true },
      ],
    });
  });

  it('escapes what mrkdwn reserves, and makes line breaks spaces, so a name cannot add lines', () => {
    expect(escapeMrkdwn('<@U1> & <!here> *b*')).toBe('&lt;@U1&gt; &amp; &lt;!here&gt; *b*');
    expect(escapeMrkdwn('a.pdf\n*From*\r\nUser 1\t\u0000x')).toBe('a.pdf *From*  User 1  x');
    const message = submissionMessage(
      notification({
        fundName: 'A&B <Fund>',
        files: [{ id: 1, name: '<x>.pdf', type: 'mini', size: 1 }],
      }),
    );
    expect(message.text).toBe('User 7 submitted 1 file for A&amp;B &lt;Fund&gt;');
    expect(JSON.stringify(message.blocks)).toContain('*&lt;x&gt;.pdf*  ·  Mini  ·  1 byte');
  });

  it.each([
    '202A',
    '202B',
    '202C',
    '202D',
    '202E',
    '2066',
    '2067',
    '2068',
    '2069',
    '200E',
    '200F',
    '061C',
    '2028',
    '2029',
  ])('makes U+%s a space in every text it carries, the fallback included', (code) => {
    const char = String.fromCodePoint(parseInt(code, 16));
    const message = submissionMessage(
      notification({
        fundName: `Acme${char}Fund`,
        message: `Final${char}deck`,
        files: [{ id: 1, name: `invoice${char}fdp.exe`, type: 'deck', size: 1 }],
      }),
    );
    const everything = JSON.stringify(message);
    expect(everything).not.toContain(char);
    expect(message.text).toBe('User 7 submitted 1 file for Acme Fund');
    expect(everything).toContain('*invoice fdp.exe*');
    expect(everything).toContain('"text":"Final deck"');
    expect(messageAsText(message)).not.toContain(char);
  });

  it("keeps the note's own line breaks, and a fund of reordering characters alone is none", () => {
    const message = submissionMessage(
      notification({ fundName: '\u202E\u2066', message: 'Line one\nLine two' }),
    );
    expect(JSON.stringify(message)).toContain('"text":"Line one\\nLine two"');
    expect(message.text).toBe('User 7 submitted 1 file');
  });

  it('cuts a long name in the message, with an ellipsis', () => {
    const name = `${'n'.repeat(200)}.pdf`;
    const { blocks } = submissionMessage(
      notification({ files: [{ id: 1, name, type: 'other', size: 0 }] }),
    );
    expect(JSON.stringify(blocks)).toContain(`*${'n'.repeat(119)}…*`);
  });

  it('has Slack show every mrkdwn text as written: no links, channels or mentions made', () => {
    const message = submissionMessage(
      notification({
        fundName: 'https://evil.example #general',
        files: [{ id: 1, name: 'x', type: null, size: 1 }],
      }),
    );
    const mrkdwnTexts = message.blocks.flatMap(textsOf).filter((t) => t.type === 'mrkdwn');
    expect(mrkdwnTexts.length).toBeGreaterThan(0);
    expect(mrkdwnTexts.every((t) => t.verbatim === true)).toBe(true);
  });

  it('leaves out a blank fund and a blank note', () => {
    const { blocks } = submissionMessage(notification({ fundName: '   ', message: ' \n ' }));
    expect(blocks.map((b) => b.type)).toEqual(['header', 'section', 'divider', 'section']);
    expect(JSON.stringify(blocks)).toContain('*Fund*\\n_not given_');
  });

  it('reads as text on the local console', () => {
    expect(messageAsText(submissionMessage(notification({ fundName: 'F', message: 'hi' })))).toBe(
      [
        '== New submission ==',
        '*From*: User 7 | *Fund*: F | *Files*: 1 file, 10 bytes',
        'hi',
        '--',
        '• *a.pdf*  ·  Deck  ·  10 bytes',
      ].join('\n'),
    );
  });
});

describe('humanSize', () => {
  it.each([
    [0, '0 bytes'],
    [1, '1 byte'],
    [999, '999 bytes'],
    [1000, '1.0 kB'],
    [999_949, '999.9 kB'],
    [999_950, '1.0 MB'],
    [52_428_800, '52.4 MB'],
    [5e12, '5.0 TB'],
    [5e15, '5000.0 TB'],
  ])('%d → %s', (bytes, shown) => {
    expect(humanSize(bytes)).toBe(shown);
  });
});
