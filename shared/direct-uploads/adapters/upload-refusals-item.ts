import * as z from 'zod';
import {
  EXPIRY_ATTRIBUTE,
  PARTITION_KEY,
  SORT_KEY,
  uploadRefusalsKey,
} from '../../storage/keys.ts';
import { REFUSED_UPLOAD, toUploadFields } from '../../storage/direct-upload-item.ts';
import {
  completableUntil,
  type DirectUpload,
  type DirectUploadRejection,
} from '../direct-upload.ts';

/**
 * How many of a user's refusals are kept: enough for every upload a client has under way to
 * be told why it was refused, however its completers race; an older one is forgotten (its
 * upload is then as gone as a cancelled one). One item of at most this many entries, however
 * many uploads a user has refused.
 */
export const REFUSALS_KEPT = 10;

/**
 * How a user's last refusals are stored: oldest first, each the upload as it was started and
 * why it was refused. `version` grows with every write, so a write lands only over the
 * refusals it read (optimistic locking); the item expires once its newest refusal could no
 * longer have been completed, as a refused upload's own item did.
 */
const UPLOAD_REFUSALS_ITEM = z.object({
  [PARTITION_KEY]: z.string(),
  [SORT_KEY]: z.string(),
  entity: z.literal('UploadRefusals'),
  version: z.number().int().positive(),
  refusals: z.array(REFUSED_UPLOAD),
  [EXPIRY_ATTRIBUTE]: z.number().int(),
});

export type UploadRefusals = z.infer<typeof UPLOAD_REFUSALS_ITEM>;
type RefusedUpload = UploadRefusals['refusals'][number];

export const fromUploadRefusalsItem = (item: unknown): UploadRefusals =>
  UPLOAD_REFUSALS_ITEM.parse(item);

const refusedUploadOf = (upload: DirectUpload, reason: DirectUploadRejection): RefusedUpload => ({
  ...toUploadFields(upload),
  status: 'rejected',
  rejection: reason,
});

/** When a refusal's upload could no longer have been completed: then it is forgotten. */
const endOf = (refused: RefusedUpload): string =>
  completableUntil({ expiresAt: refused.expires_at });

/** When DynamoDB may delete the item (epoch seconds): its newest refusal's end. */
const expiryOf = (refusals: readonly RefusedUpload[]): number =>
  Math.max(...refusals.map((refused) => Math.ceil(Date.parse(endOf(refused)) / 1000)));

/**
 * The item after `upload` is refused for `reason`: its refusal last; the oldest dropped past
 * `REFUSALS_KEPT`, and those whose end came before this upload began. Over `read` (undefined
 * when the user has none yet).
 */
export function withRefusal(
  read: UploadRefusals | undefined,
  upload: DirectUpload,
  reason: DirectUploadRejection,
): UploadRefusals {
  const others = (read?.refusals ?? []).filter(
    (refused) => refused.id !== upload.id && endOf(refused) > upload.createdAt,
  );
  const refusals = [...others, refusedUploadOf(upload, reason)].slice(-REFUSALS_KEPT);
  return {
    ...uploadRefusalsKey(upload.userId),
    entity: 'UploadRefusals',
    version: (read?.version ?? 0) + 1,
    refusals,
    [EXPIRY_ATTRIBUTE]: expiryOf(refusals),
  };
}

/** The item without the refusal of `fileId`; undefined when it held none. */
export function withoutRefusal(read: UploadRefusals, fileId: number): UploadRefusals | undefined {
  const refusals = read.refusals.filter((refused) => refused.id !== fileId);
  if (refusals.length === read.refusals.length) return undefined;
  return {
    ...read,
    version: read.version + 1,
    refusals,
    [EXPIRY_ATTRIBUTE]: refusals.length === 0 ? read[EXPIRY_ATTRIBUTE] : expiryOf(refusals),
  };
}
