/**
 * The service's own metrics, one row each: name, unit, and what one data point means. The
 * handlers emit them (through `recordMetric`), the dashboard draws them, docs/operating.md
 * explains them: this table is the one list all three use.
 *
 * Each metric carries one dimension, `service`, and `Refusals` one more, `statusClass`: every
 * combination is a custom metric CloudWatch bills for, so there are no per-user, per-route
 * or per-function dimensions (API Gateway and Lambda publish those themselves).
 */
export const BUSINESS_METRICS = {
  MultipartUploads: { unit: 'Count', meaning: 'A file uploaded through the multipart route' },
  MultipartUploadBytes: { unit: 'Bytes', meaning: 'The size of each multipart upload' },
  DirectUploadsCompleted: {
    unit: 'Count',
    meaning: 'A direct upload recorded as a file, by its complete call or by the S3 event',
  },
  DirectUploadBytes: { unit: 'Bytes', meaning: 'The size of each completed direct upload' },
  DirectUploadsRejected: {
    unit: 'Count',
    meaning: 'A direct upload refused for its size (empty, or over the limit); its bytes deleted',
  },
  FilesScanned: {
    unit: 'Count',
    meaning: "A malware-scan verdict recorded on a file for the first time (GuardDuty's event)",
  },
  ThreatsFound: {
    unit: 'Count',
    meaning: 'A file whose scan found malware: held for good, its owner may only delete it',
  },
  ScanFailures: {
    unit: 'Count',
    meaning: 'A file the scanner could not judge (unsupported, access denied, failed): held',
  },
  RealtimeTokensIssued: { unit: 'Count', meaning: 'A realtime-collaboration token signed' },
  RoomsPerToken: { unit: 'Count', meaning: 'The rooms one issued token opens (0 or more)' },
  NotificationsQueued: { unit: 'Count', meaning: 'A submission notification accepted and queued' },
  NotificationsThrottled: {
    unit: 'Count',
    meaning: "A notify call refused (429) for its sender's allowance; nothing recorded or queued",
  },
  NotificationsSent: { unit: 'Count', meaning: 'A notification posted to the chat channel' },
  NotificationsFailed: {
    unit: 'Count',
    meaning: 'A try that did not post a notification: retried later, or the last one',
  },
  NotificationsDeadLettered: {
    unit: 'Count',
    meaning: 'A notification message set aside in the dead-letter queue for an operator',
  },
  IdempotentReplays: {
    unit: 'Count',
    meaning: "A request with a used Idempotency-Key, answered with the first request's response",
  },
  AnswersTooLarge: {
    unit: 'Count',
    meaning: "An answer over Lambda's 6 MB, refused by the function before Lambda could",
  },
  RefusalsNotRecorded: {
    unit: 'Count',
    meaning:
      "A refused deal-room access's entry not written to the access trail: its caller's five slots for the minute were taken",
  },
  Refusals: {
    unit: 'Count',
    meaning: 'A response of status 400 or more from a function, by `statusClass` (4xx or 5xx)',
  },
} as const satisfies Record<string, { unit: 'Count' | 'Bytes'; meaning: string }>;

export type BusinessMetric = keyof typeof BUSINESS_METRICS;

/** The dimension every metric carries; Powertools adds it from the service name. */
export const SERVICE_NAME = 'file-service';

/** Powertools' cold-start metric, with dimensions `service` and `function_name`. */
export const COLD_START_METRIC = 'ColdStart';

/** Each stage's metrics live apart: `FileService/production`, `FileService/development`. */
export const metricsNamespace = (stage: string): string => `FileService/${stage}`;
