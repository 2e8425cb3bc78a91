import * as z from 'zod';
import { fileDigestHeaderSchema } from '../http/file-digest-header.ts';
import { EXAMPLE_BUCKET_URL } from './examples.ts';
import { detailAnswer, emptyAnswer } from './operation.ts';

/** What a file's download does, whoever's file it is. */
export const FILE_DOWNLOAD_DESCRIPTION =
  'A redirect to a presigned S3 link, valid for 5 minutes, that serves the bytes as an ' +
  'attachment under the file’s name; `x-checksum-sha256` names the SHA-256 the bytes must ' +
  'have.';

/**
 * The answers of every file download but its 404 and 422: the link, and the malware scan's
 * holds (`shared/scanning/download-hold.ts`). `objectKey` is where the example file's bytes are.
 */
export const fileDownloadAnswers = (objectKey: string) => ({
  302: emptyAnswer(
    'Go to `Location` for the bytes',
    z.object({
      location: z
        .string()
        .describe('The presigned S3 GET, valid for 5 minutes')
        .meta({
          examples: [`${EXAMPLE_BUCKET_URL}/${objectKey}?X-Amz-Algorithm=AWS4-HMAC-SHA256&…`],
        }),
      'cache-control': z.literal('no-store'),
      ...fileDigestHeaderSchema,
    }),
  ),
  403: detailAnswer(
    'Malware was found in the file: its record stays, its bytes are never handed out',
    'Malware was found in this file; it cannot be downloaded',
  ),
  409: detailAnswer(
    'The file is held by the malware scan: being scanned (with `Retry-After`), stored before scanning began, or not judged by the scanner and held for an operator',
    'The file is being scanned for malware; try again shortly',
  ),
});
