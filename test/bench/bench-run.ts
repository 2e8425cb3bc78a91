/**
 * What `npm run bench` runs (bench.ts checks the arguments first). Every figure is held
 * against a floor measured in the same run, and the run exits 1 when a ratio misses its
 * target:
 * - `cold-start`: every function's bundle, imported cold, against its SDK clients alone;
 * - `cpu`: CPU time per request of each route's handler, in this process, on ports answered
 *   from memory, against that route's floor (`cpu-bench.ts`);
 * - `decoding`: CPU per MB of a JSON body by the numbers it holds, against integers;
 * - `digests`: CPU per MB of a SHA-256 with `node:crypto` (reported);
 * then, on one local stage in a process of its own, on DynamoDB Local and the object store:
 * - `tokens`: a 50-room realtime token against its BatchGetItem sent directly;
 * - `listing`: 10,000 files listed against the raw paginated Query of the same items;
 * - `uploads`: a 4 MiB multipart upload against a direct PutObject (reported), then the
 *   DynamoDB and S3 calls of one upload on the real adapters, held to at most one DynamoDB
 *   call more than before quotas;
 * - `refusals`: a usage read after 150 refused starts and 150 refused uploads, held to the
 *   calls and items read of a user with none;
 * - `downloads`: a deal file's download link with and without its access-trail entry, held to
 *   one DynamoDB call more, and 100 members of a deal at once (`download-bench.ts`);
 * - `load`: each route under 50 clients (reported);
 * - `trail`: a deal's access trail of 1,000,000 entries, paged and exported (`trail-bench.ts`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { LOCAL_CREDENTIALS } from '#infra/local/stage/stand-ins.ts';
import { startDynamoDbLocal } from '#infra/local/dynamodb/dynamodb-local.ts';
import { loadIdentityProvider } from '#infra/local/gateway/identity-provider.ts';
import { REPOSITORY_ROOT } from '#infra/local/stage/data-folder.ts';
import { LOCAL_TABLE } from '#infra/local/stage/local-stage.ts';
import type { BenchPart } from './bench.ts';
import { benchColdStarts, coldStartReport, coldStartsMet } from './cold-start.ts';
import { benchCpu } from './cpu-bench.ts';
import { benchDecoding } from './decode-bench.ts';
import { benchDigests } from './digest-bench.ts';
import { benchDownloads } from './download-bench.ts';
import { type Figure, missed } from './figures.ts';
import { benchBigAccounts } from './big-account-bench.ts';
import { benchListing } from './listing-bench.ts';
import { benchRefusals } from './refusal-bench.ts';
import { benchRoutes } from './route-bench.ts';
import { benchTokens } from './token-bench.ts';
import { benchTrail } from './trail-bench.ts';
import { benchUploads } from './upload-bench.ts';
import { benchUploadRoundTrips } from './upload-round-trips.ts';

const TOKEN_ROUNDS = Number(process.env.BENCH_TOKEN_ROUNDS ?? 300);
/** Set to a folder to write a CPU profile of the stage process there (`--cpu-prof`). */
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR;

const children: ChildProcess[] = [];

/** Runs a script of this folder in a process of its own; resolves with its first line. */
async function startProcess(
  script: string,
  args: readonly string[],
  nodeFlags: string[] = [],
  env: Record<string, string> = {},
) {
  const child = spawn(
    process.execPath,
    [...nodeFlags, join(REPOSITORY_ROOT, 'test/bench', script), ...args],
    {
      env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  children.push(child);
  const first: string | undefined = await new Promise((resolve) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', () => {
      resolve(undefined);
    });
  });
  if (first === undefined || child.pid === undefined) throw new Error(`${script} did not start`);
  const announced = JSON.parse(first) as Record<string, string | undefined>;
  return { pid: child.pid, announced };
}

/** Stops the children and waits for them, so that a profile one writes on exit is whole. */
async function stopChildren() {
  await Promise.all(
    children.splice(0).map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) {
            resolve();
            return;
          }
          child.once('exit', () => {
            resolve();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
}

/** Runs the parts named (every part when none is) and prints each figure; the exit code. */
export async function runBench(parts: ReadonlySet<BenchPart>): Promise<number> {
  const runs = (part: BenchPart) => parts.size === 0 || parts.has(part);
  const workDir = await mkdtemp(join(tmpdir(), 'file-service-bench-'));
  const figures: Figure[] = [];
  let coldStartsOk = true;
  try {
    if (runs('cold-start')) {
      const coldStarts = await benchColdStarts(join(workDir, 'bundles'));
      console.log(coldStartReport(coldStarts));
      coldStartsOk = coldStartsMet(coldStarts);
    }
    if (runs('cpu')) {
      const cpu = await benchCpu();
      console.log(cpu.report);
      figures.push(...cpu.figures);
    }
    if (runs('decoding')) {
      const decoding = benchDecoding();
      console.log(decoding.report);
      figures.push(...decoding.figures);
    }
    if (runs('digests')) {
      const digests = benchDigests();
      console.log(digests.report);
      figures.push(...digests.figures);
    }
    const onStandIns: readonly BenchPart[] = [
      'tokens',
      'listing',
      'uploads',
      'refusals',
      'downloads',
      'load',
      'trail',
    ];
    if (onStandIns.some(runs)) {
      const dynamodb = await startDynamoDbLocal();
      try {
        const s3Process = await startProcess('object-store-process.ts', [join(workDir, 's3')]);
        const s3Endpoint = s3Process.announced.endpoint ?? '';
        const s3Credentials = {
          accessKeyId: LOCAL_CREDENTIALS.accessKeyId,
          secretAccessKey: s3Process.announced.secretAccessKey ?? '',
        };
        const stageDir = join(workDir, 'stage');
        const stageProcess = await startProcess(
          'stage-process.ts',
          [stageDir, dynamodb.endpoint, s3Endpoint],
          PROFILE_DIR === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`],
          { BENCH_S3_SECRET: s3Credentials.secretAccessKey },
        );
        const url = stageProcess.announced.url ?? '';
        const identity = await loadIdentityProvider(stageDir);
        const token = await identity.issueToken({ userId: 1, expiresIn: 3600 });
        if (runs('tokens')) {
          const bare = await startProcess('bare-token-service.ts', [
            dynamodb.endpoint,
            LOCAL_TABLE,
            '1',
          ]);
          const tokens = await benchTokens({
            url,
            bareUrl: `${bare.announced.url ?? ''}/api/v1/auth/get-realtime-token`,
            bearer: token,
            userId: 1,
            dynamodbEndpoint: dynamodb.endpoint,
            rounds: TOKEN_ROUNDS,
          });
          console.log(tokens.report);
          figures.push(...tokens.figures);
        }
        if (runs('listing')) {
          const listing = await benchListing({
            url,
            bearer: await identity.issueToken({ userId: 2, expiresIn: 3600 }),
            userId: 2,
            dynamodbEndpoint: dynamodb.endpoint,
          });
          console.log(listing.report);
          figures.push(...listing.figures);
          if (process.env.BENCH_BIG_ACCOUNTS !== '0') {
            const big = await benchBigAccounts({
              url,
              bearerFor: (userId) => identity.issueToken({ userId, expiresIn: 3600 }),
              dynamodbEndpoint: dynamodb.endpoint,
            });
            console.log(big.report);
            figures.push(...big.figures);
          }
        }
        if (runs('uploads')) {
          const uploads = await benchUploads({
            url,
            bearer: token,
            s3Endpoint,
            s3Credentials,
            stagePid: stageProcess.pid,
          });
          console.log(uploads.report);
          figures.push(...uploads.figures);
          const roundTrips = await benchUploadRoundTrips({
            dynamodbEndpoint: dynamodb.endpoint,
            s3Endpoint,
            s3Credentials,
          });
          console.log(roundTrips.report);
          figures.push(...roundTrips.figures);
        }
        if (runs('refusals')) {
          const refusals = await benchRefusals({
            dynamodbEndpoint: dynamodb.endpoint,
            s3Endpoint,
            s3Credentials,
          });
          console.log(refusals.report);
          figures.push(...refusals.figures);
        }
        if (runs('downloads')) {
          const downloads = await benchDownloads({
            dynamodbEndpoint: dynamodb.endpoint,
            s3Endpoint,
            s3Credentials,
          });
          console.log(downloads.report);
          figures.push(...downloads.figures);
        }
        if (runs('trail')) {
          const trail = await benchTrail({
            url,
            bearer: token,
            dynamodbEndpoint: dynamodb.endpoint,
            stageDir,
          });
          console.log(trail.report);
          figures.push(...trail.figures);
        }
        if (runs('load')) {
          const users = await Promise.all(
            Array.from({ length: 50 }, (_, i) =>
              identity.issueToken({ userId: 100 + i, expiresIn: 3600 }),
            ),
          );
          const tokenOf = (connection: number) => users[connection % users.length] ?? token;
          console.log((await benchRoutes({ url, tokenOf })).report);
        }
      } finally {
        await stopChildren();
        await dynamodb.stop();
      }
    }
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
  const misses = figures.filter(missed).map((figure) => figure.name);
  if (!coldStartsOk) misses.unshift('a cold start');
  console.log(
    misses.length === 0
      ? 'Every target met.'
      : `MISSED: ${misses.join('; ')}. docs/benchmarks.md says what each target means.`,
  );
  return misses.length === 0 ? 0 : 1;
}
