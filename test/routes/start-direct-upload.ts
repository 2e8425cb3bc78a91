import { directUploadObjectKey } from '#shared/storage/keys.ts';
import { MAX_UPLOAD_BYTES } from '#shared/user-files/upload-limits.ts';
import {
  EXAMPLE_OWNER,
  requestExample,
  startUpload,
  userAtFileLimit,
} from '#test/support/example-situations.ts';
import { AT, MAX_ID } from '#test/support/largest-bodies.ts';
import { routeFacts } from '#test/support/route-facts.ts';

export default routeFacts({
  routes: {
    'POST /api/v1/user/me/file/upload': {
      request: () => ({ json: { name: 'a.pdf', type: 'deck', filesize: 10 } }),
      // A signed form: its policy and signature, for a key and a name of their own limits.
      largestBody: () => ({
        id: MAX_ID,
        key: directUploadObjectKey(MAX_ID, MAX_ID),
        url: `https://${'b'.repeat(63)}.s3.ap-southeast-2.amazonaws.com/`,
        fields: Object.fromEntries(
          Array.from({ length: 12 }, (_, i) => [`field-${String(i)}`, 'f'.repeat(4096)]),
        ),
        expires_at: AT,
        max_filesize: MAX_UPLOAD_BYTES,
      }),
    },
  },
  examples: {
    together: {
      // The owner's: the ticket's key and fields name them.
      'POST /api/v1/user/me/file/upload 201': (kit) =>
        startUpload(kit, EXAMPLE_OWNER, requestExample('POST /api/v1/user/me/file/upload')),
      'POST /api/v1/user/me/file/upload 403': async (kit) =>
        startUpload(kit, await userAtFileLimit(kit), {
          name: 'late.bin',
          type: 'other',
          filesize: 5,
        }),
      'POST /api/v1/user/me/file/upload 422': (kit) =>
        startUpload(kit, kit.newUser(), {
          name: 'model.xlsx',
          type: 'financials',
          filesize: MAX_UPLOAD_BYTES + 1,
        }),
    },
  },
});
