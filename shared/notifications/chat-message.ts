import type { FileType } from '../domain/file-type.ts';
import type { FileHold, NotifiedFile, SubmissionNotification } from './submission-notification.ts';

/** Slack's Block Kit text object. */
interface TextObject {
  readonly type: 'plain_text' | 'mrkdwn';
  readonly text: string;
  readonly emoji?: boolean;
  readonly verbatim?: boolean;
}

export type Block =
  | { readonly type: 'header'; readonly text: TextObject }
  | { readonly type: 'section'; readonly text?: TextObject; readonly fields?: TextObject[] }
  | { readonly type: 'divider' }
  | { readonly type: 'context'; readonly elements: TextObject[] };

/** An incoming-webhook payload: `text` is the notification's fallback, `blocks` the body. */
export interface ChatMessage {
  readonly text: string;
  readonly blocks: readonly Block[];
}

/** Slack's Block Kit limits (api.slack.com/reference/block-kit/blocks). */
export const SLACK_LIMITS = {
  blocks: 50,
  headerText: 150,
  sectionText: 3000,
  sectionFields: 10,
  fieldText: 2000,
  contextElements: 10,
} as const;

/** The message names this many files; the rest are summed up in one line. */
export const FILES_LISTED = 20;
/** Longer file names are cut (with "…") in the message; the record keeps them whole. */
const NAME_SHOWN = 120;

const TYPE_LABELS: Readonly<Record<FileType, string>> = {
  deck: 'Deck',
  financials: 'Financials',
  raw_data: 'Raw data',
  snapshot: 'Snapshot',
  full: 'Full',
  mini: 'Mini',
  nano: 'Nano',
  other: 'Other',
};

const typeLabel = (type: FileType | null): string =>
  type === null ? 'No type' : TYPE_LABELS[type];

/**
 * Characters that reorder or break the text around them: bidirectional embeddings,
 * overrides and isolates (U+202A–U+202E, U+2066–U+2069), the direction marks (U+200E,
 * U+200F, U+061C), and Unicode's line and paragraph separators (U+2028, U+2029). In a user's
 * text they would let `invoice\u202Efdp.exe` show as `invoiceexe.pdf`, or start lines of its own.
 */
const REORDERING = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C\u2028\u2029]/gu;

/** A user's text with every reordering character made a space: shown as it was typed. */
export const neutralized = (text: string): string => text.replace(REORDERING, ' ');

/**
 * A user's text as one line: line breaks, reordering and other control characters made
 * spaces, so it cannot start lines of its own or disguise its extension.
 */
export const singleLine = (text: string): string => neutralized(text).replace(/\p{Cc}/gu, ' ');

/**
 * A user's text inside our mrkdwn: on a single line, and the three characters Slack reserves
 * escaped (api.slack.com, formatting).
 */
export const escapeMrkdwn = (text: string): string =>
  singleLine(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** mrkdwn as written: `verbatim` stops Slack turning URLs, channels and mentions into links. */
const mrkdwn = (text: string): TextObject => ({ type: 'mrkdwn', text, verbatim: true });

/** Cuts to at most `max` code points, with an ellipsis when it cut. */
const cut = (text: string, max: number): string => {
  const points = Array.from(text);
  return points.length <= max ? text : `${points.slice(0, max - 1).join('')}…`;
};

/**
 * The text in pieces of at most `max` UTF-16 units, never splitting a character: the note's
 * cap counts code points, as Pydantic does, and 2,000 emoji are 4,000 units.
 */
function pieces(text: string, max: number): string[] {
  const found: string[] = [];
  let current = '';
  for (const point of text) {
    if (current.length + point.length > max) {
      found.push(current);
      current = '';
    }
    current += point;
  }
  if (current !== '') found.push(current);
  return found;
}

/** Sizes as people read them: 1,000-byte kB and MB, one decimal. */
export function humanSize(bytes: number): string {
  if (bytes < 1000) return bytes === 1 ? '1 byte' : `${bytes} bytes`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 999.95 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit] ?? 'TB'}`;
}

const files = (n: number): string => (n === 1 ? '1 file' : `${n} files`);

/** What the message says of a file the malware scan held when it was announced. */
const HOLD_NOTES: Readonly<Record<FileHold, string>> = {
  'malware-found': '  ·  :warning: *malware found: not downloadable*',
  'not-cleared': '  ·  _held until the malware scan clears it_',
};

const fileLine = (file: NotifiedFile): string =>
  `• *${escapeMrkdwn(cut(file.name, NAME_SHOWN))}*  ·  ${typeLabel(file.type)}  ·  ${humanSize(file.size)}${file.held === undefined ? '' : HOLD_NOTES[file.held]}`;

/** Lines packed into as few sections as fit Slack's 3,000 characters a section. */
function sections(lines: readonly string[]): Block[] {
  const blocks: Block[] = [];
  let current = '';
  for (const line of lines) {
    const joined = current === '' ? line : `${current}\n${line}`;
    if (joined.length > SLACK_LIMITS.sectionText && current !== '') {
      blocks.push({ type: 'section', text: mrkdwn(current) });
      current = line;
    } else {
      current = joined;
    }
  }
  if (current !== '') blocks.push({ type: 'section', text: mrkdwn(current) });
  return blocks;
}

/** "and 80 more files: 50 Deck, 30 Financials (240.0 MB)". */
function remainder(rest: readonly NotifiedFile[]): string {
  const byType = new Map<string, number>();
  for (const file of rest) {
    const label = typeLabel(file.type);
    byType.set(label, (byType.get(label) ?? 0) + 1);
  }
  const counts = [...byType].map(([label, count]) => `${count} ${label}`).join(', ');
  const size = humanSize(rest.reduce((sum, file) => sum + file.size, 0));
  return `…and ${rest.length} more ${rest.length === 1 ? 'file' : 'files'}: ${counts} (${size})`;
}

/**
 * The one consolidated message for a submission: who, the fund, the files (name, type and
 * size), and the sender's note. The sender's text is shown as plain text, so it can neither
 * mention the channel nor link anywhere.
 */
export function submissionMessage(notification: SubmissionNotification): ChatMessage {
  const sender = `User ${notification.userId}`;
  const fund = neutralized(notification.fundName ?? '').trim();
  // The note keeps its own line breaks (plain text); nothing may reorder it.
  const note = neutralized(notification.message ?? '').trim();
  const total = notification.files.reduce((sum, file) => sum + file.size, 0);
  const count = notification.files.length;
  const listed = notification.files.slice(0, FILES_LISTED);
  const rest = notification.files.slice(FILES_LISTED);

  const blocks: Block[] = [
    { type: 'header', text: { type: 'plain_text', text: 'New submission', emoji: false } },
    {
      type: 'section',
      fields: [
        mrkdwn(`*From*\n${sender}`),
        mrkdwn(`*Fund*\n${fund === '' ? '_not given_' : escapeMrkdwn(fund)}`),
        mrkdwn(`*Files*\n${files(count)}, ${humanSize(total)}`),
      ],
    },
  ];
  for (const part of pieces(note, SLACK_LIMITS.sectionText)) {
    blocks.push({ type: 'section', text: { type: 'plain_text', text: part, emoji: false } });
  }
  blocks.push({ type: 'divider' }, ...sections(listed.map(fileLine)));
  if (rest.length > 0) {
    blocks.push({ type: 'context', elements: [mrkdwn(remainder(rest))] });
  }
  const forFund = fund === '' ? '' : ` for ${escapeMrkdwn(cut(fund, NAME_SHOWN))}`;
  return { text: `${sender} submitted ${files(count)}${forFund}`, blocks };
}
