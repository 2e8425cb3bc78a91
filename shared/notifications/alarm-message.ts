import type { AlarmState, AlarmStateChange } from './alarm-state-change.ts';
import {
  type Block,
  type ChatMessage,
  escapeMrkdwn,
  neutralized,
  singleLine,
  SLACK_LIMITS,
} from './chat-message.ts';

/** How each state reads in chat: a word a person scans for, and a mark to scan by. */
const STATE_LABELS: Readonly<Record<AlarmState, string>> = {
  ALARM: '🔴 ALARM',
  OK: '✅ OK',
  INSUFFICIENT_DATA: '⚪ INSUFFICIENT DATA',
};

/** The CloudWatch console's host in each partition; an alarm elsewhere gets no link. */
const CONSOLE_HOSTS: Readonly<Record<string, string>> = {
  aws: 'console.aws.amazon.com',
  'aws-cn': 'console.amazonaws.cn',
  'aws-us-gov': 'console.amazonaws-us-gov.com',
};

/** `arn:<partition>:cloudwatch:<region>:<account>:alarm:<name>`, in parts. */
const ALARM_ARN = /^arn:([a-z-]+):cloudwatch:([a-z0-9-]+):(\d{12}):alarm:/;

/** Where the alarm is: its region code and account, from its ARN (the message's `Region` is a display name). */
function alarmPlace(
  change: AlarmStateChange,
): { partition: string; region: string; account: string } | undefined {
  const match = ALARM_ARN.exec(change.alarmArn ?? '');
  if (match === null) return undefined;
  const [, partition = '', region = '', account = ''] = match;
  return { partition, region, account };
}

/** The alarm's page in the CloudWatch console, when its ARN says where it is. */
function alarmConsoleUrl(change: AlarmStateChange): string | undefined {
  const place = alarmPlace(change);
  const host = place === undefined ? undefined : CONSOLE_HOSTS[place.partition];
  if (place === undefined || host === undefined) return undefined;
  return `https://${host}/cloudwatch/home?region=${place.region}#alarmsV2:alarm/${encodeURIComponent(change.alarmName)}`;
}

const mrkdwn = (text: string) => ({ type: 'mrkdwn' as const, text, verbatim: true });
const plain = (text: string) => ({ type: 'plain_text' as const, text, emoji: false });
/** Cuts to at most `max` code points, with an ellipsis when it cut. */
const cut = (text: string, max: number): string => {
  const points = Array.from(text);
  return points.length <= max ? text : `${points.slice(0, max - 1).join('')}…`;
};

/**
 * A header, cleaned as a chat message's text is: an alarm's name or a topic's subject may
 * hold U+202E or line breaks (issue 41), which would reverse or split what a person reads.
 */
const header = (text: string): Block => ({
  type: 'header',
  text: plain(cut(singleLine(text), SLACK_LIMITS.headerText)),
});
/** Plain text that keeps its line breaks, as a submission's note does; nothing may reorder it. */
const paragraph = (text: string): Block => ({
  type: 'section',
  text: plain(cut(neutralized(text), SLACK_LIMITS.sectionText)),
});

/**
 * One alarm state change as one chat message: the new state and the alarm's name first (what
 * a person reads in a notification), then what the alarm watches (its description), why it
 * changed (CloudWatch's reason), when and where, and a link to the alarm in the console. The
 * names and reason are shown as text: an alarm on a topic we did not make cannot mention the
 * channel or link elsewhere.
 */
export function alarmMessage(change: AlarmStateChange): ChatMessage {
  const state = STATE_LABELS[change.newState];
  const place = alarmPlace(change);
  const url = alarmConsoleUrl(change);
  const where =
    place === undefined
      ? (change.accountId ?? 'unknown account')
      : `${place.region}, account ${place.account}`;
  const blocks: Block[] = [header(`${state}: ${change.alarmName}`)];
  if (change.description !== undefined && change.description.trim() !== '') {
    blocks.push(paragraph(change.description));
  }
  blocks.push(
    {
      type: 'section',
      fields: [
        mrkdwn(
          `*State*\n${change.oldState === undefined ? '' : `${STATE_LABELS[change.oldState]} → `}${state}`,
        ),
        mrkdwn(`*Since*\n${escapeMrkdwn(change.changedAt ?? 'not given')}`),
        mrkdwn(`*Where*\n${escapeMrkdwn(where)}`),
      ],
    },
    paragraph(`Reason: ${change.reason}`),
  );
  if (url !== undefined) {
    blocks.push({
      type: 'context',
      elements: [mrkdwn(`<${url}|Open the alarm in the CloudWatch console>`)],
    });
  }
  const placed = place === undefined ? '' : ` in ${place.region}`;
  return { text: `${state}: ${escapeMrkdwn(change.alarmName)}${placed}`, blocks };
}

/**
 * A message on the alarm topic that is no alarm state change (an existing topic may carry
 * others): its subject and text as they came, so it still reaches a person.
 */
export function topicMessage(subject: string | undefined, text: string): ChatMessage {
  const title =
    subject === undefined || subject.trim() === '' ? 'Message on the alarm topic' : subject;
  const blocks: Block[] = [header(title)];
  if (text.trim() !== '') blocks.push(paragraph(text));
  return { text: escapeMrkdwn(cut(title, SLACK_LIMITS.headerText)), blocks };
}
