/**
 * The local stage alone in a process of its own, on the bench's emulators, so that the
 * bench can read this process's memory and nothing else's. Prints its URL, then serves
 * until SIGTERM.
 */
// As `npm start` sets them, before the handlers load.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
process.env.POWERTOOLS_METRICS_NAMESPACE ??= 'FileService/local';
const { startLocalStage } = await import('#infra/local/local-stage.ts');

const [dataDir, dynamodbEndpoint, s3Endpoint] = process.argv.slice(2);
if (dataDir === undefined || dynamodbEndpoint === undefined || s3Endpoint === undefined) {
  throw new Error('usage: stage-process.ts <dataDir> <dynamodbEndpoint> <s3Endpoint>');
}
const stage = await startLocalStage({
  dataDir,
  port: 0,
  emulators: { dynamodbEndpoint, s3Endpoint },
});
process.on('SIGTERM', () => {
  void stage.close().then(() => process.exit(0));
});
console.log(JSON.stringify({ url: stage.url }));
