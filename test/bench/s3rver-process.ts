/**
 * s3rver alone in a process of its own, as S3 is a service of its own: neither the bench's
 * client nor the stage shares its thread. Prints its endpoint and secret (to the bench, over
 * a pipe), then serves until SIGTERM.
 */
import { startS3rver } from '#infra/local/emulators.ts';

const [directory] = process.argv.slice(2);
if (directory === undefined) throw new Error('usage: s3rver-process.ts <directory>');
const s3rver = await startS3rver({ directory });
process.on('SIGTERM', () => {
  void s3rver.stop().then(() => process.exit(0));
});
console.log(
  JSON.stringify({
    endpoint: s3rver.endpoint,
    secretAccessKey: s3rver.credentials.secretAccessKey,
  }),
);
