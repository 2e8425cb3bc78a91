import { describe, expect, it } from 'vitest';
import { LOCAL_BUCKET } from '#infra/local/stage/data-folder.ts';
import { bucketNameAsLongAsDeployed } from '#test/support/test-stage.ts';

describe('the local bucket is named as long as a deployed one', () => {
  it('has 63 characters, as a CloudFormation-made name can, and so do test buckets', () => {
    expect(LOCAL_BUCKET).toHaveLength(63);
    expect(LOCAL_BUCKET).toMatch(/^[a-z0-9][a-z0-9-]*[a-z0-9]$/);
    const test = bucketNameAsLongAsDeployed('test-1a2b3c4d');
    expect(test).toHaveLength(63);
    expect(test).toMatch(/^test-1a2b3c4d-[a-z0-9-]*[a-z0-9]$/);
  });
});
