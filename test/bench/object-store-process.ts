/**
 * The local object store alone in a process of its own, as S3 is a service of its own: neither the bench's
 * client nor the stage shares its thread. Prints its endpoint and secret (to the bench, over
 * a pipe), then serves until SIGTERM.
 */
import { startObjectStore } from '#infra/local/stage/stand-ins.ts';

const [directory] = process.argv.slice(2);
if (directory === undefined) throw new Error('usage: object-store-process.ts <directory>');
const store = await startObjectStore({ directory });
process.on('SIGTERM', () => {
  void store.stop().then(() => process.exit(0));
});
console.log(
  JSON.stringify({
    endpoint: store.endpoint,
    secretAccessKey: store.credentials.secretAccessKey,
  }),
);
