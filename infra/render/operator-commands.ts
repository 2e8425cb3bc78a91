/**
 * docs/operator-cli.md's table of commands, from the commands themselves (`COMMANDS`): each
 * command's usage and what it does, as `--help` says them (`npm run render` writes it).
 */
import { COMMANDS } from '../admin/commands.ts';
import { code, markdownTable } from './markdown.ts';

export const operatorCommandsTable = (): string =>
  markdownTable(
    ['Command', 'What it does'],
    COMMANDS.map((command) => [code(command.usage), command.summary]),
  );
