import * as z from 'zod';

/** CloudWatch's alarm states. */
const ALARM_STATES = ['OK', 'ALARM', 'INSUFFICIENT_DATA'] as const;
export type AlarmState = (typeof ALARM_STATES)[number];

/** One alarm's change of state, as CloudWatch says it in the message it publishes to SNS. */
export interface AlarmStateChange {
  readonly alarmName: string;
  readonly description: string | undefined;
  readonly newState: AlarmState;
  readonly oldState: AlarmState | undefined;
  /** CloudWatch's own sentence: which datapoints crossed which threshold. */
  readonly reason: string;
  /** ISO 8601, as CloudWatch writes it (`2026-11-27T10:15:00.123+0000`). */
  readonly changedAt: string | undefined;
  /** The alarm's ARN: its partition, region code and account. */
  readonly alarmArn: string | undefined;
  readonly accountId: string | undefined;
}

/**
 * The fields of CloudWatch's alarm notification that a message needs; the rest (the trigger,
 * a composite alarm's rule) are left alone. CloudWatch writes `null` for an alarm without a
 * description.
 */
const AlarmNotification = z.object({
  AlarmName: z.string().min(1),
  AlarmDescription: z.string().nullish(),
  NewStateValue: z.enum(ALARM_STATES),
  OldStateValue: z.enum(ALARM_STATES).nullish(),
  NewStateReason: z.string(),
  StateChangeTime: z.string().nullish(),
  AlarmArn: z.string().nullish(),
  AWSAccountId: z.string().nullish(),
});

/** The alarm state change an SNS message holds, or undefined for any other message. */
export function alarmStateChangeOf(message: string): AlarmStateChange | undefined {
  let json: unknown;
  try {
    json = JSON.parse(message);
  } catch {
    return undefined;
  }
  const parsed = AlarmNotification.safeParse(json);
  if (!parsed.success) return undefined;
  const n = parsed.data;
  return {
    alarmName: n.AlarmName,
    description: n.AlarmDescription ?? undefined,
    newState: n.NewStateValue,
    oldState: n.OldStateValue ?? undefined,
    reason: n.NewStateReason,
    changedAt: n.StateChangeTime ?? undefined,
    alarmArn: n.AlarmArn ?? undefined,
    accountId: n.AWSAccountId ?? undefined,
  };
}

/**
 * A new alarm's first evaluation: CloudWatch creates every alarm in INSUFFICIENT_DATA, and its
 * first evaluation (OK, with the stage's missing data treated as not breaching) runs the OK
 * actions. A deploy that creates the stage's alarms would so announce each one, an alarm that
 * never fired; a move to ALARM from there is a real alarm and is not one of these.
 */
export const isFirstEvaluationOk = (change: AlarmStateChange): boolean =>
  change.oldState === 'INSUFFICIENT_DATA' && change.newState === 'OK';
