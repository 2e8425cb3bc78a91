import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ChatChannel, PostOutcome } from '../../../shared/notifications/chat-channel.ts';
import type { ChatMessage } from '../../../shared/notifications/chat-message.ts';

/** The message as lines of text: what a developer reads on the local stage's console. */
export function messageAsText(message: ChatMessage): string {
  const lines: string[] = [];
  for (const block of message.blocks) {
    if (block.type === 'header') lines.push(`== ${block.text.text} ==`);
    else if (block.type === 'divider') lines.push('--');
    else if (block.type === 'context') lines.push(...block.elements.map((e) => e.text));
    else {
      if (block.text !== undefined) lines.push(block.text.text);
      if (block.fields !== undefined)
        lines.push(block.fields.map((f) => f.text.replace('\n', ': ')).join(' | '));
    }
  }
  return lines.join('\n');
}

/**
 * Control characters other than the line break and tab (C0, DEL, C1: ESC's cursor moves, colours,
 * titles, a carriage return that overwrites the line) and Unicode's reordering marks. A
 * user's note reaches the developer's terminal: each is shown as its escape, not obeyed.
 */
const TERMINAL_CONTROLS = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu;

export const asTerminalText = (text: string): string =>
  text.replace(TERMINAL_CONTROLS, (char) =>
    char === '\n' || char === '\t'
      ? char
      : `\\u${(char.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
  );

/**
 * The local stage's chat channel when no webhook is set: each message is printed and
 * appended, as the JSON a webhook would get, to a JSON Lines file.
 */
export class ChatLogChannel implements ChatChannel {
  private readonly file: string;
  private readonly print: (text: string) => void;

  constructor(
    file: string,
    print: (text: string) => void = (text) => {
      console.log(text);
    },
  ) {
    this.file = file;
    this.print = print;
  }

  async post(message: ChatMessage): Promise<PostOutcome> {
    await mkdir(dirname(this.file), { recursive: true });
    await appendFile(
      this.file,
      `${JSON.stringify({ at: new Date().toISOString(), ...message })}\n`,
    );
    this.print(`[chat] ${asTerminalText(messageAsText(message)).replace(/\n/g, '\n[chat] ')}`);
    return { kind: 'delivered' };
  }
}
