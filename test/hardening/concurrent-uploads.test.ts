/**
 * Issue 3's figure: 200 uploads at once get 200 distinct ids, 200 records and 200 objects,
 * while four block refills race. `npm test` holds the same with 60
 * (test/e2e/upload-user-file.test.ts); this is the load's size.
 */
import { describe, it } from 'vitest';
import { expectConcurrentUploadsApart } from '#test/support/concurrent-uploads.ts';
import { useTestStage } from '#test/support/test-stage.ts';

const stage = useTestStage();

describe('POST /api/v1/user/me/file, 200 at once', () => {
  it('gives 200 concurrent uploads 200 distinct ids, records and objects', async () => {
    await expectConcurrentUploadsApart(stage(), 14, 200);
  });
});
