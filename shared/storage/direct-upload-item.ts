import * as z from 'zod';
import { FILE_TYPES } from '../domain/file-type.ts';
import { EXPIRY_ATTRIBUTE, PARTITION_KEY, SORT_KEY } from './keys.ts';
import type { DirectUpload } from '../direct-uploads/direct-upload.ts';

/** How a pending direct upload is stored; read only through this schema. */
const DIRECT_UPLOAD_ITEM = z.object({
  [PARTITION_KEY]: z.string(),
  [SORT_KEY]: z.string(),
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
  status: z.enum(['pending', 'completing', 'rejected']),
  rejection: z.enum(['too_large', 'empty', 'larger_than_declared', 'digest_mismatch']).optional(),
  claim_token: z.string().optional(),
  claim_until: z.string().optional(),
  // Only a refused upload expires by TTL: a waiting one holds a reservation, given back when
  // it is completed, cancelled or swept once it can no longer be completed.
  [EXPIRY_ATTRIBUTE]: z.number().int().optional(),
});

export const fromDirectUploadItem = (item: unknown): DirectUpload => {
  const stored = DIRECT_UPLOAD_ITEM.parse(item);
  return {
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
    ...(stored.claim_token === undefined || stored.claim_until === undefined
      ? {}
      : { claim: { token: stored.claim_token, until: stored.claim_until } }),
  };
};
