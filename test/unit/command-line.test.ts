/**
 * The CLIs' option mistakes, said plainly: every CLI that reads options (admin, event,
 * invoke, and those that parse through `parseCommandLine`) says them in these words.
 */
import { describe, expect, it } from 'vitest';
import { optionMistake } from '#infra/command-line.ts';

const OPTIONS = {
  group: { type: 'string' },
  body: { type: 'string', multiple: true },
  'dry-run': { type: 'boolean' },
  user: { type: 'string', short: 'u' },
  help: { type: 'boolean', short: 'h' },
} as const;

describe('optionMistake', () => {
  it.each([
    [['--grp', '7'], 'unknown option --grp'],
    [['--grp=7'], 'unknown option --grp'],
    [['-x'], 'unknown option -x'],
    [['-hx'], 'unknown option -x'],
    // A name Object.prototype has is no option either.
    [['--constructor'], 'unknown option --constructor'],
    [['--group'], '--group needs a value'],
    [['-u'], '-u needs a value'],
    [
      ['--group', '--user', '5'],
      '--group needs a value (one that starts with "-" is written --group=--user)',
    ],
    [['--group', '-3'], '--group needs a value (one that starts with "-" is written --group=-3)'],
    [['--dry-run=yes'], '--dry-run takes no value'],
    [['--help=1'], '--help takes no value'],
  ])('%j → %s', (args, message) => {
    expect(optionMistake(args, OPTIONS)).toBe(message);
  });

  it.each([
    [[]],
    [['group', 'add', '--group', '7', '--dry-run']],
    [['--group=-3', '-u', '5', '-h']],
    // `-` alone is a value (standard input, say), as parseArgs takes it.
    [['--group', '-']],
    [['--body', '{}', '--body', '[]']],
    [['--group=']],
    // After `--`, words are positionals, whatever they look like.
    [['--', '--grp', '-x']],
  ])('%j → nothing wrong', (args) => {
    expect(optionMistake(args, OPTIONS)).toBeUndefined();
  });

  it('names the first mistake, in the order given', () => {
    expect(optionMistake(['--group', '1', '--bogus', '--user'], OPTIONS)).toBe(
      'unknown option --bogus',
    );
  });
});
