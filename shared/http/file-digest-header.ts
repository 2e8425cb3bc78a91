import * as z from 'zod';
import type { FileRecord } from '../domain/file-record.ts';

/**
 * The header that names a stored file's SHA-256 on the answers about it (the file's GET, the
 * download's 302): the value S3 gives as `x-amz-checksum-sha256`, base64 of the 32 bytes,
 * which S3's clients already compare. The `x-amz-` prefix is API Gateway's own (reserved),
 * and RFC 9530's `Repr-Digest` would name the digest of the answer itself, not of the file.
 */
export const FILE_DIGEST_HEADER = 'x-checksum-sha256';

/** The header for this file: none when its digest predates them. */
export const fileDigestHeaders = (file: Pick<FileRecord, 'sha256'>): Record<string, string> =>
  file.sha256 === undefined ? {} : { [FILE_DIGEST_HEADER]: file.sha256 };

/** The header as the OpenAPI document describes it. */
export const fileDigestHeaderSchema = {
  [FILE_DIGEST_HEADER]: z
    .string()
    .optional()
    .describe(
      'The SHA-256 of the file’s bytes, base64 of the 32 bytes (as S3’s `x-amz-checksum-sha256`); absent for a file stored before digests were kept',
    )
    .meta({ examples: ['LmK/bLYXUn+H/n2Lnxo0DjGRaID9T4lNMB1tRhIH2Yw='] }),
};
