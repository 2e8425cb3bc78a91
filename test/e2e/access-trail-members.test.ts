/**
 * The access trail's entries for memberships (issue 55 item 2): the operator's adds, role
 * changes and removals, each in the group's trail with its change, by the operator.
 */
import { describe, expect, it } from 'vitest';
import { useTestStage } from '#test/support/test-stage.ts';
import { entriesAddedBy, storedEntry } from '#test/support/trail-entries.ts';

const stage = useTestStage(() => ({ malwareScanning: false }));

/** `npm run admin -- <args>` on the stage, which must succeed; its entries. */
async function admin(...args: string[]) {
  return entriesAddedBy(stage(), async () => {
    const { code, err } = await stage().admin(args);
    expect(err).toBe('');
    expect(code).toBe(0);
  });
}

const byOperator = { actor: 'operator', outcome: 'allowed', group_id: 990, member_id: 95 };

describe('the access trail of memberships', () => {
  it('records an add, a change of role and a removal in the group’s trail, by the operator', async () => {
    expect((await stage().admin(['group', 'add', '--group', '990', '--name', 'Fund'])).code).toBe(
      0,
    );
    const added = await admin(
      'member',
      'add',
      '--group',
      '990',
      '--user',
      '95',
      '--role',
      'viewer',
    );
    expect(added).toEqual([
      storedEntry(added[0] ?? {}, {
        scope: 'GROUP#990',
        action: 'member.add',
        ...byOperator,
        role: 'viewer',
      }),
    ]);
    const changed = await admin(
      'member',
      'add',
      '--group',
      '990',
      '--user',
      '95',
      '--role',
      'editor',
    );
    expect(changed).toEqual([
      storedEntry(changed[0] ?? {}, {
        scope: 'GROUP#990',
        action: 'member.change_role',
        ...byOperator,
        role: 'editor',
        previous_role: 'viewer',
      }),
    ]);
    // The same role again changes nothing, and records nothing.
    expect(
      await admin('member', 'add', '--group', '990', '--user', '95', '--role', 'editor'),
    ).toEqual([]);
    const removed = await admin('member', 'remove', '--group', '990', '--user', '95');
    expect(removed).toEqual([
      storedEntry(removed[0] ?? {}, {
        scope: 'GROUP#990',
        action: 'member.remove',
        ...byOperator,
        previous_role: 'editor',
      }),
    ]);
  });

  it('records nothing for a refused change: a group missing, a member who is none', async () => {
    const before = await stage().stored();
    const added = await entriesAddedBy(stage(), async () => {
      const missing = await stage().admin([
        'member',
        'add',
        '--group',
        '991',
        '--user',
        '96',
        '--role',
        'viewer',
      ]);
      expect(missing).toEqual({
        code: 1,
        out: '',
        err: 'admin: member add: group 991 does not exist; nothing was changed',
      });
      const none = await stage().admin(['member', 'remove', '--group', '990', '--user', '96']);
      expect(none).toEqual({
        code: 1,
        out: '',
        err: 'admin: member remove: user 96 is not a member of group 990; nothing was changed',
      });
    });
    expect(added).toEqual([]);
    expect(await stage().stored()).toEqual(before);
  });
});
