import { DeleteBucketCorsCommand, PutBucketCorsCommand, S3Client } from '@aws-sdk/client-s3';
import { bucketCorsRules } from '../../stacks/cors-rules.ts';
import { LOCAL_REGION, s3ClientOptions } from '../emulators.ts';
import type { Credentials } from '../sigv4-check.ts';

/**
 * Gives the local stage's bucket the CORS rule the data stack gives a deployed one, for the
 * stage's allowed origins; with none, takes any rule away (a data folder keeps its bucket).
 * The object store's front answers preflights from it, as S3 does.
 */
export async function setBucketCors(
  endpoint: string,
  bucket: string,
  credentials: Credentials,
  allowedOrigins: readonly string[],
): Promise<void> {
  const client = new S3Client({ ...s3ClientOptions(endpoint), region: LOCAL_REGION, credentials });
  const rules = bucketCorsRules(allowedOrigins);
  try {
    if (rules.length === 0) {
      await client.send(new DeleteBucketCorsCommand({ Bucket: bucket }));
      return;
    }
    await client.send(
      new PutBucketCorsCommand({
        Bucket: bucket,
        CORSConfiguration: {
          CORSRules: rules.map((rule) => ({
            AllowedOrigins: [...rule.allowOrigins],
            AllowedMethods: [...rule.allowMethods],
            ...(rule.allowHeaders.length === 0 ? {} : { AllowedHeaders: [...rule.allowHeaders] }),
            ExposeHeaders: [...rule.exposeHeaders],
            MaxAgeSeconds: rule.maxAgeSeconds,
          })),
        },
      }),
    );
  } finally {
    client.destroy();
  }
}
