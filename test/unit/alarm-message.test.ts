import { describe, expect, it } from 'vitest';
import { alarmMessage, topicMessage } from '#shared/notifications/alarm-message.ts';
import { alarmStateChangeOf } from '#shared/notifications/alarm-state-change.ts';
import { CLOUDWATCH_ALARM_NOTIFICATION as NOTIFICATION } from '#test/support/cloudwatch-alarm-notification.ts';

const changeOf = (fields: Record<string, unknown> = {}) => {
  const change = alarmStateChangeOf(JSON.stringify({ ...NOTIFICATION, ...fields }));
  if (change === undefined) throw new Error('not read as an alarm state change');
  return change;
};

describe('alarmStateChangeOf', () => {
  it('reads what a message needs from CloudWatch’s notification', () => {
    expect(changeOf()).toEqual({
      alarmName: NOTIFICATION.AlarmName,
      description: NOTIFICATION.AlarmDescription,
      newState: 'ALARM',
      oldState: 'OK',
      reason: NOTIFICATION.NewStateReason,
      changedAt: '2026-11-27T10:15:00.123+0000',
      alarmArn: NOTIFICATION.AlarmArn,
      accountId: '123456789012',
    });
  });

  it('takes an alarm without a description (CloudWatch writes null)', () => {
    expect(changeOf({ AlarmDescription: null }).description).toBeUndefined();
  });

  it.each([
    ['not JSON', 'Budget exceeded'],
    ['JSON of another kind', JSON.stringify({ budgetName: 'x' })],
    ['an unknown state', JSON.stringify({ ...NOTIFICATION, NewStateValue: 'ON_FIRE' })],
  ])('is undefined for %s', (_what, message) => {
    expect(alarmStateChangeOf(message)).toBeUndefined();
  });
});

describe('alarmMessage', () => {
  it('says the state and name first, then what it watches, when and where, why, and links the console', () => {
    const url =
      'https://console.aws.amazon.com/cloudwatch/home?region=eu-west-1#alarmsV2:alarm/FileService-production-api-AlarmsListUserFilesErrors4F2A9C1B-1X2Y3Z';
    expect(alarmMessage(changeOf())).toEqual({
      text: `🔴 ALARM: ${NOTIFICATION.AlarmName} in eu-west-1`,
      blocks: [
        {
          type: 'header',
          text: { type: 'plain_text', text: `🔴 ALARM: ${NOTIFICATION.AlarmName}`, emoji: false },
        },
        {
          type: 'section',
          text: { type: 'plain_text', text: NOTIFICATION.AlarmDescription, emoji: false },
        },
        {
          type: 'section',
          fields: [
            { type: 'mrkdwn', text: '*State*\n✅ OK → 🔴 ALARM', verbatim: true },
            { type: 'mrkdwn', text: '*Since*\n2026-11-27T10:15:00.123+0000', verbatim: true },
            { type: 'mrkdwn', text: '*Where*\neu-west-1, account 123456789012', verbatim: true },
          ],
        },
        {
          type: 'section',
          text: {
            type: 'plain_text',
            text: `Reason: ${NOTIFICATION.NewStateReason}`,
            emoji: false,
          },
        },
        {
          type: 'context',
          elements: [
            {
              type: 'mrkdwn',
              text: `<${url}|Open the alarm in the CloudWatch console>`,
              verbatim: true,
            },
          ],
        },
      ],
    });
  });

  it('says the return to OK, and cuts a long name to Slack’s header limit', () => {
    const name = `x${'y'.repeat(300)}`;
    const message = alarmMessage(
      changeOf({ NewStateValue: 'OK', OldStateValue: 'ALARM', AlarmName: name }),
    );
    const header = message.blocks[0];
    expect(header?.type === 'header' && Array.from(header.text.text)).toHaveLength(150);
    expect(message.text.startsWith('✅ OK: xyyy')).toBe(true);
  });

  it('a name from a foreign topic cannot mention the channel or link elsewhere', () => {
    const message = alarmMessage(
      changeOf({ AlarmName: '<!channel> <https://evil.example|click>', AlarmArn: null }),
    );
    expect(message.text).toBe('🔴 ALARM: &lt;!channel&gt; &lt;https://evil.example|click&gt;');
    // Without an ARN nothing says where the alarm is: no link, the account alone.
    expect(message.blocks.some((block) => block.type === 'context')).toBe(false);
    expect(JSON.stringify(message.blocks)).toContain('*Where*\\n123456789012');
  });

  it('a name with U+202E and a line break heads the message on one line, in its own order', () => {
    const message = alarmMessage(
      changeOf({
        AlarmName: 'api-errors\u202Efdp.exe\r\n🔴 OK: all clear',
        AlarmDescription: 'Watches \u202Eerrors\nof the API',
        NewStateReason: 'Threshold \u2066crossed',
      }),
    );
    expect(message.blocks[0]).toEqual({
      type: 'header',
      text: {
        type: 'plain_text',
        text: '🔴 ALARM: api-errors fdp.exe  🔴 OK: all clear',
        emoji: false,
      },
    });
    // The description and reason keep their line breaks, as a submission's note does.
    expect(message.blocks[1]).toMatchObject({ text: { text: 'Watches  errors\nof the API' } });
    // Nowhere in the message (JSON writes these two as they are, and a CR as `\r`).
    expect(JSON.stringify(message)).not.toMatch(/[\u202E\u2066]|\\r/u);
  });

  it('links the console of the alarm’s own partition', () => {
    const cn = alarmMessage(
      changeOf({ AlarmArn: 'arn:aws-cn:cloudwatch:cn-north-1:123456789012:alarm:a b' }),
    );
    expect(JSON.stringify(cn.blocks)).toContain(
      'https://console.amazonaws.cn/cloudwatch/home?region=cn-north-1#alarmsV2:alarm/',
    );
  });
});

describe('topicMessage', () => {
  it('posts any other message on the topic as its subject and text', () => {
    expect(topicMessage('Budget alert', 'You spent it all')).toEqual({
      text: 'Budget alert',
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: 'Budget alert', emoji: false } },
        { type: 'section', text: { type: 'plain_text', text: 'You spent it all', emoji: false } },
      ],
    });
    const foreign = topicMessage('Budget\u202E\r\nalert', 'line one\nline\u202Etwo');
    expect(foreign.blocks).toEqual([
      { type: 'header', text: { type: 'plain_text', text: 'Budget   alert', emoji: false } },
      { type: 'section', text: { type: 'plain_text', text: 'line one\nline two', emoji: false } },
    ]);
    expect(topicMessage(undefined, '').blocks).toEqual([
      {
        type: 'header',
        text: { type: 'plain_text', text: 'Message on the alarm topic', emoji: false },
      },
    ]);
  });
});
