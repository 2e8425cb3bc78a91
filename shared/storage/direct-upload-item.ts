import * as z from 'zod';
import { FILE_TYPES } from '../domain/file-type.ts';
import { EXPIRY_ATTRIBUTE, PARTITION_KEY, SORT_KEY } from './keys.ts';
import type { DirectUpload } from '../direct-uploads/direct-upload.ts';

const REJECTION = z.enum(['too_large', 'empty', 'larger_than_declared', 'digest_mismatch']);

/** What a direct upload is, however it is kept: what its client started. */
const UPLOAD_FIELDS = z.object({
  entity: z.literal('DirectUpload'),
  id: z.number().int().positive(),
  user_id: z.number().int().positive(),
  name: z.string(),
  type: z.enum(FILE_TYPES),
  content_type: z.string(),
  declared_size: z.number().int().nonnegative(),
  sha256: z.string().optional(),
  // Absent on uploads started before quotas: they hold no reservation.
  reserved: z.boolean().optional(),
  created_at: z.string(),
  expires_at: z.string(),
});

/** How a pending direct upload is stored; read only through this schema. */
const DIRECT_UPLOAD_ITEM = UPLOAD_FIELDS.extend({
  [PARTITION_KEY]: z.string(),
  [SORT_KEY]: z.string(),
  // `rejected` only on items written before refusals moved to their own item: they expire.
  status: z.enum(['pending', 'completing', 'rejected']),
  rejection: REJECTION.optional(),
  claim_token: z.string().optional(),
  claim_until: z.string().optional(),
  // Only a refused upload expires by TTL: a waiting one holds a reservation, given back when
  // it is completed, cancelled or swept once it can no longer be completed.
  [EXPIRY_ATTRIBUTE]: z.number().int().optional(),
});

/** A refused upload as its owner's refusals item keeps it: what was started, and why refused. */
export const REFUSED_UPLOAD = UPLOAD_FIELDS.extend({
  status: z.literal('rejected'),
  rejection: REJECTION,
});

const uploadOf = (
  stored: z.infer<typeof DIRECT_UPLOAD_ITEM> | z.infer<typeof REFUSED_UPLOAD>,
): DirectUpload => ({
  id: stored.id,
  userId: stored.user_id,
  name: stored.name,
  type: stored.type,
  contentType: stored.content_type,
  declaredSize: stored.declared_size,
  ...(stored.sha256 === undefined ? {} : { sha256: stored.sha256 }),
  reserved: stored.reserved === true,
  createdAt: stored.created_at,
  expiresAt: stored.expires_at,
  status: stored.status,
  ...(stored.rejection === undefined ? {} : { rejection: stored.rejection }),
  ...('claim_token' in stored &&
  stored.claim_token !== undefined &&
  stored.claim_until !== undefined
    ? { claim: { token: stored.claim_token, until: stored.claim_until } }
    : {}),
});

/** What an upload's client started, as both its item and its owner's refusals keep it. */
export const toUploadFields = (upload: DirectUpload): z.infer<typeof UPLOAD_FIELDS> => ({
  entity: 'DirectUpload',
  id: upload.id,
  user_id: upload.userId,
  name: upload.name,
  type: upload.type,
  content_type: upload.contentType,
  declared_size: upload.declaredSize,
  ...(upload.sha256 === undefined ? {} : { sha256: upload.sha256 }),
  ...(upload.reserved ? { reserved: true } : {}),
  created_at: upload.createdAt,
  expires_at: upload.expiresAt,
});

export const fromDirectUploadItem = (item: unknown): DirectUpload =>
  uploadOf(DIRECT_UPLOAD_ITEM.parse(item));

/** A refused upload from its entry in its owner's refusals item. */
export const fromRefusedUpload = (entry: z.infer<typeof REFUSED_UPLOAD>): DirectUpload =>
  uploadOf(entry);
