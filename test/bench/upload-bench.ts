/**
 * A 4 MiB upload through the local stage's multipart endpoint (about the most API Gateway
 * and Lambda admit in a form) against a direct PutObject of the same bytes to the same
 * the object store, and the stage process's peak memory growth while it takes the upload. Reported,
 * no target: the route's own cost is held to a budget in process (`cpu-bench.ts`); here the
 * local stage reads the body whole and base64-encodes it into the event, as Lambda does.
 */
import type { Credentials } from '#infra/local/sigv4-check.ts';
import { request as httpRequest } from 'node:http';
import { randomBytes } from 'node:crypto';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { ensureBucket, LOCAL_REGION, s3ClientOptions } from '#infra/local/stage/stand-ins.ts';
import { LOCAL_BUCKET } from '#infra/local/stage/local-stage.ts';
import { uploadForm } from '#test/support/multipart.ts';
import { type Figure, figureLine, FIGURE_HEADER, median, spreadOf, timed } from './figures.ts';
import { peakResidentBytes, residentBytes, resetPeak } from './proc-memory.ts';

/** A multipart upload the deployed platform admits: its base64 event stays under 6 MB. */
const UPLOAD_BYTES = 4 * 1024 * 1024;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

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

export async function benchUploads(options: {
  url: string;
  bearer: string;
  s3Endpoint: string;
  s3Credentials: Credentials;
  stagePid: number;
}): Promise<{ report: string; figures: Figure[] }> {
  const client = new S3Client({
    ...s3ClientOptions(options.s3Endpoint),
    region: LOCAL_REGION,
    credentials: options.s3Credentials,
  });
  await ensureBucket(options.s3Endpoint, LOCAL_BUCKET, options.s3Credentials);
  const content = randomBytes(UPLOAD_BYTES);
  const form = uploadForm(content, { name: 'bench.bin', type: 'raw_data' });
  // node:http on both sides, as the SDK's PutObject uses it: fetch adds its own copying.
  const uploadThroughStage = async () => {
    const { status, text } = await post(`${options.url}/api/v1/user/me/file`, form.body, {
      authorization: `Bearer ${options.bearer}`,
      'content-type': form.contentType,
    });
    if (status !== 201) throw new Error(`Upload answered ${status}: ${text}`);
  };
  const putDirectly = (key: string) =>
    client.send(
      new PutObjectCommand({
        Bucket: LOCAL_BUCKET,
        Key: key,
        Body: content,
        ContentLength: content.length,
      }),
    );
  try {
    // Warm-up at full size: every module imported, every connection open, on both sides.
    await uploadThroughStage();
    await putDirectly('bench/warm-up');
    const direct: number[] = [];
    const staged: number[] = [];
    const growth: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      direct.push(await timed(() => putDirectly(`bench/direct-${String(round)}`)));
      resetPeak(options.stagePid);
      const baseline = residentBytes(options.stagePid);
      staged.push(await timed(uploadThroughStage));
      growth.push(peakResidentBytes(options.stagePid) - baseline);
    }
    const figure: Figure = {
      name: 'POST /api/v1/user/me/file, 4 MiB',
      unit: 'ms',
      ...spreadOf(staged),
      floor: median(direct),
      floorName: 'PutObject of the bytes to the object store',
    };
    const worstGrowth = Math.max(...growth);
    return {
      figures: [figure],
      report: `
Upload of ${mib(UPLOAD_BYTES)} through the local stage against a direct PutObject, ${String(ROUNDS)} rounds
${FIGURE_HEADER}
${figureLine(figure)}
  stage peak RSS growth during an upload: ${mib(worstGrowth)} = ${(worstGrowth / UPLOAD_BYTES).toFixed(2)}x the file (reported)
`,
    };
  } finally {
    client.destroy();
  }
}
