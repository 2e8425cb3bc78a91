/**
 * What `npm run bench` runs (bench.ts checks the arguments first):
 * - every function's bundle size and cold import time against a bundle of only its AWS SDK
 *   clients (`cold-start.ts`). Target: ratio <= 1.3;
 *
 * then, on one local stage in a process of its own:
 * - a 4 MiB upload through the multipart endpoint (near the most API Gateway and Lambda admit;
 *   50 MiB goes through the direct upload) against a direct PutObject of the same bytes to
 *   the same s3rver, and the stage's peak memory while it takes the upload. Targets:
 *   time ratio (direct / stage) >= 0.7; peak RSS growth <= 4x the file size;
 * - realtime-token latency for 0, 1 and 50 rooms (`token-bench.ts`). Target: the 50-room
 *   median at most twice the 0-room median, reported beside the emulator's own floor;
 * - throughput and p50/p99 latency per route under 50 clients (`route-bench.ts`; alone with
 *   `npm run bench -- load`). Reported, no target.
 * Exits 1 when a cold-start or upload target is missed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  ensureBucket,
  LOCAL_CREDENTIALS,
  LOCAL_REGION,
  startDynamoDbLocal,
} from '#infra/local/emulators.ts';
import { loadIdentityProvider } from '#infra/local/identity-provider.ts';
import { LOCAL_BUCKET } from '#infra/local/local-stage.ts';
import { REPOSITORY_ROOT } from '#infra/local/paths.ts';
import { s3ClientOptions } from '#infra/local/emulators.ts';
import { uploadForm } from '#test/support/multipart.ts';
import { peakResidentBytes, residentBytes, resetPeak } from './proc-memory.ts';
import { benchColdStarts, coldStartReport, coldStartsMet } from './cold-start.ts';
import { benchRoutes } from './route-bench.ts';
import { benchTokens } from './token-bench.ts';

/** A multipart upload the deployed platform admits: its base64 event stays under 6 MB. */
const UPLOAD_BYTES = 4 * 1024 * 1024;

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const RATIO_TARGET = 0.7;
const RSS_GROWTH_TARGET = 4;
const TOKEN_ROUNDS = Number(process.env.BENCH_TOKEN_ROUNDS ?? 300);

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const median = (values: readonly number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

function post(
  target: string,
  body: Buffer,
  headers: Record<string, string>,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      target,
      { method: 'POST', headers: { ...headers, 'content-length': String(body.length) } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString() });
        });
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

async function timed(work: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** Runs a script of this folder in a process of its own; resolves with its first line. */
async function startProcess(script: string, args: readonly string[]) {
  const child = spawn(process.execPath, [join(REPOSITORY_ROOT, 'test/bench', script), ...args], {
    env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
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

/** Checked by bench.ts before this module loads. */
const part = process.argv[2] as 'cold-start' | 'load' | undefined;

const workDir = await mkdtemp(join(tmpdir(), 'file-service-bench-'));
/** `npm run bench -- load`: the routes under load, alone. */
const loadOnly = part === 'load';
const coldStarts = loadOnly ? [] : await benchColdStarts(join(workDir, 'bundles'));
if (!loadOnly) console.log(coldStartReport(coldStarts));
if (part === 'cold-start') {
  await rm(workDir, { recursive: true, force: true });
  process.exit(coldStartsMet(coldStarts) ? 0 : 1);
}
const children: ChildProcess[] = [];
const dynamodb = await startDynamoDbLocal();
let s3: S3Client | undefined;

try {
  const s3Process = await startProcess('s3rver-process.ts', [join(workDir, 's3')]);
  const s3Endpoint = s3Process.announced.endpoint ?? '';
  const stageDir = join(workDir, 'stage');
  const stageProcess = await startProcess('stage-process.ts', [
    stageDir,
    dynamodb.endpoint,
    s3Endpoint,
  ]);
  const { pid } = stageProcess;
  const url = stageProcess.announced.url ?? '';
  s3 = new S3Client({
    ...s3ClientOptions(s3Endpoint),
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  const client = s3;
  await ensureBucket(s3Endpoint, LOCAL_BUCKET);
  const identity = await loadIdentityProvider(stageDir);
  const token = await identity.issueToken({ userId: 1, expiresIn: 3600 });

  const users = await Promise.all(
    Array.from({ length: 50 }, (_, i) => identity.issueToken({ userId: 100 + i, expiresIn: 3600 })),
  );
  const tokenOf = (connection: number) => users[connection % users.length] ?? token;
  if (loadOnly) {
    console.log((await benchRoutes({ url, tokenOf })).report);
  } else {
    const content = randomBytes(UPLOAD_BYTES);
    const form = uploadForm(content, { name: 'bench.bin', type: 'raw_data' });
    // node:http on both sides, as the SDK's PutObject uses it: fetch adds its own copying.
    const uploadThroughStage = async (body: Buffer, contentType: string) => {
      const { status, text } = await post(`${url}/api/v1/user/me/file`, body, {
        authorization: `Bearer ${token}`,
        'content-type': contentType,
      });
      if (status !== 201) throw new Error(`Upload answered ${status}: ${text}`);
    };
    const putDirectly = async (key: string, body: Buffer) => {
      await client.send(
        new PutObjectCommand({
          Bucket: LOCAL_BUCKET,
          Key: key,
          Body: body,
          ContentLength: body.length,
        }),
      );
    };

    // Warm-up at full size: every module imported, every connection open and every hot path
    // compiled, on both sides, before anything is measured.
    await uploadThroughStage(form.body, form.contentType);
    await putDirectly('bench/warm-up', content);

    const direct: number[] = [];
    const staged: number[] = [];
    const growth: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      direct.push(await timed(() => putDirectly(`bench/direct-${round}`, content)));
      resetPeak(pid);
      const baseline = residentBytes(pid);
      staged.push(await timed(() => uploadThroughStage(form.body, form.contentType)));
      growth.push(peakResidentBytes(pid) - baseline);
    }

    const ratio = median(direct) / median(staged);
    const worstGrowth = Math.max(...growth);
    const growthFactor = worstGrowth / UPLOAD_BYTES;
    console.log(`
Upload of ${mib(UPLOAD_BYTES)} (${UPLOAD_BYTES} bytes), median of ${ROUNDS} rounds
  direct PutObject to s3rver         ${median(direct).toFixed(0)} ms   (${direct.map((t) => t.toFixed(0)).join(', ')})
  POST /api/v1/user/me/file (stage)  ${median(staged).toFixed(0)} ms   (${staged.map((t) => t.toFixed(0)).join(', ')})
  ratio direct / stage               ${ratio.toFixed(2)}   target >= ${RATIO_TARGET}  ${ratio >= RATIO_TARGET ? 'ok' : 'MISSED'}
  stage peak RSS growth              ${mib(worstGrowth)} = ${growthFactor.toFixed(2)}x the file   target <= ${RSS_GROWTH_TARGET}x  ${growthFactor <= RSS_GROWTH_TARGET ? 'ok' : 'MISSED'}
`);
    const tokens = await benchTokens({
      url,
      bearer: token,
      userId: 1,
      dynamodbEndpoint: dynamodb.endpoint,
      rounds: TOKEN_ROUNDS,
    });
    console.log(tokens.report);
    const uploadMet = ratio >= RATIO_TARGET && growthFactor <= RSS_GROWTH_TARGET;
    process.exitCode = uploadMet && coldStartsMet(coldStarts) ? 0 : 1;
    console.log((await benchRoutes({ url, tokenOf })).report);
  }
} finally {
  for (const child of children) child.kill('SIGTERM');
  s3?.destroy();
  await dynamodb.stop();
  await rm(workDir, { recursive: true, force: true });
}
