import { MAX_UPLOAD_BYTES } from '#shared/user-files/upload-limits.ts';
import {
  EXAMPLE_OWNER,
  requestExample,
  startUpload,
  userAtFileLimit,
} from '#test/support/example-situations.ts';
import { routeFacts } from '#test/support/route-facts.ts';

export default routeFacts({
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
