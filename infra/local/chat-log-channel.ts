import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ChatChannel, PostOutcome } from '../../shared/notifications/chat-channel.ts';
import { type ChatMessage, messageAsText } from '../../shared/notifications/chat-message.ts';

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
    this.print(`[chat] ${messageAsText(message).replace(/\n/g, '\n[chat] ')}`);
    return { kind: 'delivered' };
  }
}
