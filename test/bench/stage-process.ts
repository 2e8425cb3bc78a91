/**
 * The local stage alone in a process of its own, on the bench's stand-ins, so that the
 * bench can read this process's memory and nothing else's. Prints its URL, then serves
 * until SIGTERM.
 */
// As `npm start` sets them, before the handlers load.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
process.env.POWERTOOLS_METRICS_NAMESPACE ??= 'FileService/local';
const { startLocalStage } = await import('#infra/local/stage/local-stage.ts');
const { LOCAL_CREDENTIALS } = await import('#infra/local/stage/stand-ins.ts');

const [dataDir, dynamodbEndpoint, s3Endpoint] = process.argv.slice(2);
// The object store's secret, from the bench: in the environment, not on a command line.
const secretAccessKey = process.env.BENCH_S3_SECRET;
if (
  dataDir === undefined ||
  dynamodbEndpoint === undefined ||
  s3Endpoint === undefined ||
  secretAccessKey === undefined
) {
  throw new Error(
    'usage: BENCH_S3_SECRET=<secret> stage-process.ts <dataDir> <dynamodbEndpoint> <s3Endpoint>',
  );
}
const stage = await startLocalStage({
  dataDir,
  port: 0,
  standIns: {
    dynamodbEndpoint,
    s3Endpoint,
    s3Credentials: { accessKeyId: LOCAL_CREDENTIALS.accessKeyId, secretAccessKey },
  },
});
// As `npm start` does: the operator CLI finds the stage by its data folder (the trail's export).
const { stageRecordOf, writeStageRecord } = await import('#infra/local/stage/stage-lock.ts');
await writeStageRecord(dataDir, stageRecordOf(stage));
process.on('SIGTERM', () => {
  void stage.close().then(() => process.exit(0));
});
console.log(JSON.stringify({ url: stage.url }));
