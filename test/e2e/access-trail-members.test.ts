/**
 * The access trail's entries for memberships (issue 55 item 2): the operator's adds, role
 * changes and removals, each in the group's trail with its change, by the operator; an
 * erasure's removals of the user's memberships too, and no entry touched by it.
 */
import { describe, expect, it } from 'vitest';
import type { UserFileBody } from '#test/support/fastapi-bodies.ts';
import { uploadForm } from '#test/support/multipart.ts';
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

  it("records an erasure's removal of each membership, by the operator, and leaves every entry there", async () => {
    const erased = 97;
    for (const [group, role] of [
      ['992', 'viewer'],
      ['993', 'editor'],
    ] as const) {
      expect((await stage().admin(['group', 'add', '--group', group, '--name', 'Fund'])).code).toBe(
        0,
      );
      await admin('member', 'add', '--group', group, '--user', String(erased), '--role', role);
    }
    // Entries of the user's own: a download of their file, a refused read of a deal.
    const upload = await stage().upload(erased, uploadForm('their deck', { name: 'deck.pdf' }));
    const { id } = (await upload.json()) as UserFileBody;
    await (await stage().download(erased, id)).body?.cancel();
    await (await stage().request('/api/v1/group/994/deal/1/file', { as: erased })).body?.cancel();
    const before = await stage().trailItems();
    expect(before.filter((item) => item.user_id === erased).map((item) => item.action)).toEqual(
      expect.arrayContaining(['user_file.download', 'deal_file.list']) as unknown,
    );

    const removed = await admin('user', 'erase', '--user', String(erased), '--settle-seconds', '0');
    expect(removed).toEqual(
      [
        ['992', 'viewer'],
        ['993', 'editor'],
      ].map(([group, role], i) =>
        storedEntry(removed[i] ?? {}, {
          scope: `GROUP#${String(group)}`,
          action: 'member.remove',
          actor: 'operator',
          outcome: 'allowed',
          group_id: Number(group),
          member_id: erased,
          previous_role: role,
        }),
      ),
    );
    // The erasure touches no entry: the trail is the fund's record too (ADR 0012).
    const keyOf = (item: Record<string, unknown>) => `${String(item.scope)} ${String(item.entry)}`;
    const inOrder = (items: Record<string, unknown>[]) =>
      items.sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
    const removals = new Set(removed.map(keyOf));
    const after = await stage().trailItems();
    expect(inOrder(after.filter((item) => !removals.has(keyOf(item))))).toEqual(inOrder(before));
    expect(
      (await stage().items()).filter((item) => item.entity === 'Member' && item.user_id === erased),
    ).toEqual([]);
  });
});
