import type { FunctionId } from '../api/routes.ts';
import type { EnvironmentName } from './environment.ts';

/** Every HTTP function behind the authorizer reads the caller's id from this claim. */
const CALLER = ['USER_ID_CLAIM'] as const;

/**
 * The variables each function reads, and so the ones the CDK stack sets for it: its handler
 * entry reads exactly these at cold start (`readEnvironment(FUNCTION_ENVIRONMENT.X)`), the
 * stack builds its environment from the same list, and a function missing here fails to compile.
 */
export const FUNCTION_ENVIRONMENT = {
  ListUserFiles: [...CALLER, 'TABLE_NAME'],
  UploadUserFile: [...CALLER, 'TABLE_NAME', 'BUCKET_NAME'],
  StartDirectUpload: [...CALLER, 'TABLE_NAME', 'BUCKET_NAME'],
  CompleteDirectUpload: [...CALLER, 'TABLE_NAME', 'BUCKET_NAME'],
  DownloadUserFile: [...CALLER, 'TABLE_NAME', 'BUCKET_NAME'],
  UpdateUserFile: [...CALLER, 'TABLE_NAME'],
  DeleteUserFile: [...CALLER, 'TABLE_NAME', 'BUCKET_NAME'],
  NotifySubmission: [
    ...CALLER,
    'TABLE_NAME',
    'NOTIFY_QUEUE_URL',
    'NOTIFY_BURST',
    'NOTIFY_RATE_PER_MINUTE',
  ],
  GetNotification: [...CALLER, 'TABLE_NAME'],
  ListDealFiles: [...CALLER, 'TABLE_NAME'],
  UpdateDealFile: [...CALLER, 'TABLE_NAME'],
  DeleteDealFile: [...CALLER, 'TABLE_NAME', 'BUCKET_NAME'],
  GetRealtimeToken: [
    ...CALLER,
    'TABLE_NAME',
    'STAGE',
    'REALTIME_ISSUER',
    'REALTIME_AUDIENCE',
    'REALTIME_TOKEN_SECONDS',
    'REALTIME_KEYS_SECRET_ARN',
  ],
  RealtimeJwks: ['REALTIME_KEYS_SECRET_ARN'],
  OpenApiDocument: [],
  ApiDocs: [],
  RouteNotFound: [],
  FinalizeDirectUpload: ['TABLE_NAME', 'BUCKET_NAME'],
  DeliverNotification: [
    'TABLE_NAME',
    'NOTIFY_QUEUE_URL',
    'NOTIFY_DLQ_URL',
    'CHAT_WEBHOOK_SECRET_ARN',
    'CHAT_RETRY_BASE_SECONDS',
    'CHAT_TIMEOUT_SECONDS',
    'CHAT_POSTS_PER_SECOND',
  ],
  InitRealtimeKeys: ['REALTIME_KEYS_SECRET_ARN'],
} as const satisfies Readonly<Record<FunctionId, readonly EnvironmentName[]>>;
