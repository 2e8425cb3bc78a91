/**
 * Every operator command, in the order `admin --help` lists them: the one list the CLI runs,
 * `--help` prints and docs/operator-cli.md's table is rendered from. Each command lives in
 * its group's file, `commands/<group>-commands.ts`; a new one is declared there and named here.
 */
import { accessExportCommand } from './commands/access-commands.ts';
import { accessSealCommand, accessVerifyCommand } from './commands/access-seal-commands.ts';
import { dealAddCommand } from './commands/deal-commands.ts';
import { dealFileAddCommand, dealFileListCommand } from './commands/deal-file-commands.ts';
import { groupAddCommand } from './commands/group-commands.ts';
import { memberAddCommand, memberRemoveCommand } from './commands/member-commands.ts';
import { realtimeKeyRotateCommand } from './commands/realtime-key-commands.ts';
import { reconcileCommand } from './commands/reconcile-commands.ts';
import {
  scanDeleteCommand,
  scanListCommand,
  scanReleaseCommand,
  scanRescanCommand,
} from './commands/scan-commands.ts';
import { usageCommand } from './commands/usage-commands.ts';
import { userEraseCommand } from './commands/user-commands.ts';
import type { Command } from './operator-command.ts';

export const COMMANDS: readonly Command[] = [
  groupAddCommand,
  memberAddCommand,
  memberRemoveCommand,
  dealAddCommand,
  dealFileAddCommand,
  realtimeKeyRotateCommand,
  reconcileCommand,
  usageCommand,
  userEraseCommand,
  scanListCommand,
  scanReleaseCommand,
  scanDeleteCommand,
  scanRescanCommand,
  dealFileListCommand,
  accessExportCommand,
  accessSealCommand,
  accessVerifyCommand,
];
