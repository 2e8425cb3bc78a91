import type { FunctionId } from '#shared/api/routes.ts';
import {
  FILES_BY_CREATION_INDEX,
  IDEMPOTENT_OPERATIONS,
  idempotencyPartitions,
  PARTITION_PATTERNS,
} from '#shared/data/keys.ts';
import { WORKER_TIMEOUT_SECONDS } from '#shared/notifications/delivery-rules.ts';
import type { ItemAction, ObjectAction } from '../constructs/grants.ts';

/** Where a grant on the table reaches: partitions by their key pattern. */
export type Partition = keyof typeof PARTITION_PATTERNS | keyof typeof IDEMPOTENT_OPERATIONS;

/** The partition key patterns each name stands for (IAM `dynamodb:LeadingKeys`). */
export const PARTITION_KEYS: Readonly<Record<Partition, string>> = {
  ...PARTITION_PATTERNS,
  uploadUserFile: idempotencyPartitions(IDEMPOTENT_OPERATIONS.uploadUserFile),
  notifySubmission: idempotencyPartitions(IDEMPOTENT_OPERATIONS.notifySubmission),
};

/** One grant, in the stack's terms; `grantAll` turns each into exactly one IAM statement. */
export type FunctionGrant =
  | {
      readonly items: readonly ItemAction[];
      readonly in: Partition;
      /** The index the calls read, instead of the table. */
      readonly index?: typeof FILES_BY_CREATION_INDEX;
    }
  | { readonly objects: readonly ObjectAction[]; readonly under: 'users/' | 'groups/' | 'uploads/' }
  /** s3:ListBucket, so a missing object is a 404 (not a 403) to HeadObject. */
  | { readonly missingObjectsAsNotFound: true }
  /** s3:ListBucketVersions, for listings under these prefixes only. */
  | { readonly listVersionsUnder: readonly ('users/' | 'uploads/')[] }
  | { readonly secret: 'realtimeKeys' | 'chatWebhook'; readonly access: 'read' | 'read-write' }
  | { readonly send: 'notificationQueue' | 'notificationDeadLetters' };

export interface FunctionSpec {
  /** MB; it also sets the function's share of CPU. */
  readonly memorySize: number;
  /** Seconds. Route functions answer within API Gateway's 30 s. */
  readonly timeout: number;
  /** Exactly the calls the function's code makes (docs/deploying.md, "Least privilege"). */
  readonly grants: readonly FunctionGrant[];
  /** Said in the console; route functions are described by their routes. */
  readonly description?: string;
  /** Whether its errors and throttles alarm; a deploy-time function's failure fails the deploy. */
  readonly alarms?: false;
}

/**
 * The complete route and the finalizer run the same completion, whichever comes first: they
 * read the form's bytes and copy them to the file's key (GetObject there, PutObject here, and,
 * in the finalizer, a HeadObject of the recorded copy when form bytes remain), delete them once
 * recorded or refused, and delete a copy no record names.
 */
const COMPLETION: readonly FunctionGrant[] = [
  { items: ['GetItem', 'UpdateItem', 'PutItem', 'DeleteItem'], in: 'users' },
  { objects: ['s3:GetObject', 's3:DeleteObject'], under: 'uploads/' },
  { objects: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'], under: 'users/' },
  { missingObjectsAsNotFound: true },
];

/** An Idempotency-Key's record: put, read, settle, drop. */
const idempotencyRecords = (operation: keyof typeof IDEMPOTENT_OPERATIONS): FunctionGrant => ({
  items: ['PutItem', 'GetItem', 'UpdateItem', 'DeleteItem'],
  in: operation,
});

/**
 * Every function the service deploys: its sizing and its grants. Its routes come from
 * `API_ROUTES` and its environment from `FUNCTION_ENVIRONMENT`, both keyed by the same ids;
 * a function missing here does not compile. Most functions wait on one or two DynamoDB
 * calls and need little memory; the multipart upload holds and parses a body of up to 6 MB,
 * and listings may build a response of several MB, so those get more (and with it more CPU).
 */
export const FUNCTION_TABLE = {
  ListUserFiles: {
    memorySize: 1024,
    timeout: 20,
    grants: [{ items: ['Query'], in: 'users', index: FILES_BY_CREATION_INDEX }],
  },
  // An id block, the object, the record (and the object's removal if the record fails).
  UploadUserFile: {
    memorySize: 1024,
    timeout: 29,
    grants: [
      { items: ['UpdateItem'], in: 'fileIds' },
      // GetItem: a record write whose answer was lost is read back before its bytes go.
      { items: ['PutItem', 'GetItem'], in: 'users' },
      idempotencyRecords('uploadUserFile'),
      { objects: ['s3:PutObject', 's3:DeleteObject'], under: 'users/' },
    ],
  },
  // The signed POST form carries this function's authority to put the object: under
  // uploads/ only, so no form can ever write a recorded file's bytes.
  StartDirectUpload: {
    memorySize: 512,
    timeout: 10,
    grants: [
      { items: ['UpdateItem'], in: 'fileIds' },
      { items: ['PutItem'], in: 'users' },
      { objects: ['s3:PutObject'], under: 'uploads/' },
    ],
  },
  CompleteDirectUpload: { memorySize: 512, timeout: 10, grants: COMPLETION },
  // The download link carries this function's authority to read the object.
  DownloadUserFile: {
    memorySize: 512,
    timeout: 10,
    grants: [
      { items: ['GetItem'], in: 'users' },
      { objects: ['s3:GetObject'], under: 'users/' },
    ],
  },
  UpdateUserFile: {
    memorySize: 512,
    timeout: 10,
    grants: [{ items: ['GetItem', 'UpdateItem'], in: 'users' }],
  },
  // Every version of the file's bytes (or a cancelled upload's) goes for good: listed, then
  // deleted by version id. The record comes back (PutItem) when its bytes will not go.
  DeleteUserFile: {
    memorySize: 512,
    timeout: 10,
    grants: [
      { items: ['GetItem', 'DeleteItem', 'PutItem'], in: 'users' },
      { listVersionsUnder: ['users/', 'uploads/'] },
      { objects: ['s3:DeleteObjectVersion'], under: 'users/' },
      { objects: ['s3:DeleteObjectVersion'], under: 'uploads/' },
    ],
  },
  // One batch read of the files; the sender's allowance (UpdateItem, conditional); the
  // record (and its removal if queueing fails).
  NotifySubmission: {
    memorySize: 512,
    timeout: 10,
    grants: [
      // GetItem: a record write whose answer was lost is read back before it is queued.
      { items: ['BatchGetItem', 'PutItem', 'GetItem', 'DeleteItem', 'UpdateItem'], in: 'users' },
      idempotencyRecords('notifySubmission'),
      { send: 'notificationQueue' },
    ],
  },
  GetNotification: { memorySize: 512, timeout: 10, grants: [{ items: ['GetItem'], in: 'users' }] },
  // Deal files: one batch read of membership, deal and file; then one transaction that
  // checks the membership and the deal (ConditionCheckItem) as it writes the file.
  ListDealFiles: {
    memorySize: 1024,
    timeout: 20,
    grants: [
      // The membership and the deal, then the deal's files from the index.
      { items: ['BatchGetItem'], in: 'groups' },
      { items: ['Query'], in: 'groups', index: FILES_BY_CREATION_INDEX },
    ],
  },
  UpdateDealFile: {
    memorySize: 512,
    timeout: 10,
    grants: [{ items: ['BatchGetItem', 'ConditionCheckItem', 'UpdateItem'], in: 'groups' }],
  },
  // The record comes back (PutItem, the deal checked) when the object will not go.
  DeleteDealFile: {
    memorySize: 512,
    timeout: 10,
    grants: [
      { items: ['BatchGetItem', 'ConditionCheckItem', 'DeleteItem', 'PutItem'], in: 'groups' },
      { objects: ['s3:DeleteObject'], under: 'groups/' },
    ],
  },
  GetRealtimeToken: {
    memorySize: 512,
    timeout: 10,
    grants: [
      { items: ['BatchGetItem'], in: 'groups' },
      { secret: 'realtimeKeys', access: 'read' },
    ],
  },
  RealtimeJwks: {
    memorySize: 256,
    timeout: 5,
    grants: [{ secret: 'realtimeKeys', access: 'read' }],
  },
  // Builds the document once per cold start.
  OpenApiDocument: { memorySize: 512, timeout: 10, grants: [] },
  // Gzips the 1.7 MB Swagger UI script once per container: CPU, hence the memory.
  ApiDocs: { memorySize: 1024, timeout: 10, grants: [] },
  RouteNotFound: {
    memorySize: 256,
    timeout: 5,
    grants: [],
    description:
      'Answers requests no route matches, as FastAPI does (404, 405, the slash redirect)',
  },
  FinalizeDirectUpload: {
    memorySize: 512,
    timeout: 30,
    grants: COMPLETION,
    description: 'Completes a direct upload when its object lands in the bucket',
  },
  // The event source grants receive, delete and ChangeMessageVisibility on the queue.
  DeliverNotification: {
    memorySize: 512,
    timeout: WORKER_TIMEOUT_SECONDS,
    grants: [
      { items: ['GetItem', 'UpdateItem'], in: 'users' },
      // The channel's pace: a conditional UpdateItem per post.
      { items: ['UpdateItem'], in: 'chatChannel' },
      { secret: 'chatWebhook', access: 'read' },
      { send: 'notificationDeadLetters' },
    ],
    description: 'Posts each queued submission notification to the chat channel',
  },
  InitRealtimeKeys: {
    memorySize: 256,
    timeout: 60,
    grants: [{ secret: 'realtimeKeys', access: 'read-write' }],
    description: 'Fills the realtime signing-key secret with a first key at deploy time',
    alarms: false,
  },
} as const satisfies Readonly<Record<FunctionId, FunctionSpec>>;
