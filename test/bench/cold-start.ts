/**
 * Bundle size and cold import time of every function, as deployed: each handler is bundled
 * with the house construct's esbuild settings (`BUNDLE`), then imported in a fresh Node 24
 * process with the function's `NODE_OPTIONS`, many times. Beside each, a baseline bundle
 * built the same way that holds only the AWS SDK clients the function's bundle holds, and
 * constructs them as the function does at module scope: captured by Powertools Tracer, which
 * every function must carry for X-Ray (the tracer's own cost is measured and printed apart).
 * Target: function / baseline <= 1.25. Each row also prints the machine's 1-minute load average
 * as its imports ended, so that a run on a busy machine shows itself.
 * Also checked: the multipart form reader ships only in the bundles of functions that take
 * a form, and no bundle holds another function's declaration (its operation and its
 * documentation) but the document's own.
 *
 * Run alone with `npm run bench -- cold-start`; `npm run bench` runs it first.
 */
import { spawn } from 'node:child_process';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { REPOSITORY_ROOT } from '#infra/local/stage/data-folder.ts';
import { API_ROUTES, bundleConstantsOf, SERVICE_FUNCTIONS } from '#functions/service-functions.ts';
import { LAMBDA_BUILD_OPTIONS } from '#test/support/lambda-build-options.ts';
import { loadAverage, median } from './figures.ts';

const COLD_START_RATIO_TARGET = 1.25;
const RUNS = Number(process.env.BENCH_COLD_RUNS ?? 15);

const FORM_READER = 'shared/http/fastapi/multipart-form.ts';
/** A function's declaration: its routes' operations, with their documentation. */
const DECLARATION = /(^|\/)functions\/([^/]+)\/function\.ts$/;
/** The one function whose answer is every route's operation: the OpenAPI document. */
const SERVES_EVERY_OPERATION: ReadonlySet<string> = new Set(['OpenApiDocument']);
/** The functions whose operation takes a form: the only bundles that may hold the reader. */
const FORM_TAKERS: ReadonlySet<string> = new Set(
  API_ROUTES.filter((route) => route.operation.request.form).map((route) => route.functionId),
);

/** The tracer every function builds, and each client is captured by, as ours are. */
const TRACER =
  "import { Tracer } from '@aws-lambda-powertools/tracer'; const tracer = new Tracer({ serviceName: 'bench', captureHTTPsRequests: false });";

/** What constructing each SDK package's client costs, as our adapters do it. */
const SDK_CLIENTS: Readonly<Record<string, string>> = {
  '@aws-sdk/client-dynamodb':
    "import { DynamoDBClient } from '@aws-sdk/client-dynamodb'; clients.push(tracer.captureAWSv3Client(new DynamoDBClient({})));",
  '@aws-sdk/lib-dynamodb':
    "import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'; import { DynamoDBClient as D } from '@aws-sdk/client-dynamodb'; clients.push(DynamoDBDocumentClient.from(tracer.captureAWSv3Client(new D({}))));",
  '@aws-sdk/client-s3':
    "import { S3Client } from '@aws-sdk/client-s3'; clients.push(tracer.captureAWSv3Client(new S3Client({})));",
  '@aws-sdk/s3-presigned-post':
    "import { createPresignedPost } from '@aws-sdk/s3-presigned-post'; clients.push(createPresignedPost);",
  '@aws-sdk/s3-request-presigner':
    "import { getSignedUrl } from '@aws-sdk/s3-request-presigner'; clients.push(getSignedUrl);",
  '@aws-sdk/client-sqs':
    "import { SQSClient } from '@aws-sdk/client-sqs'; clients.push(tracer.captureAWSv3Client(new SQSClient({})));",
  '@aws-sdk/client-secrets-manager':
    "import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager'; clients.push(tracer.captureAWSv3Client(new SecretsManagerClient({})));",
};

/** The settings each function checks at cold start; values only need the right shape. */
const ENVIRONMENT = {
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'bench',
  AWS_SECRET_ACCESS_KEY: 'bench',
  STAGE: 'production',
  TABLE_NAME: 'bench-table',
  TRAIL_TABLE_NAME: 'bench-table-access-trail',
  TRAIL_DIGEST_BUCKET_NAME: 'bench-digests',
  BUCKET_NAME: 'bench-bucket',
  REALTIME_ISSUER: 'https://files.example.com',
  REALTIME_KEYS_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:keys-AbCdEf',
  CHAT_WEBHOOK_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:hook-AbCdEf',
  NOTIFY_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/notifications',
  NOTIFY_DLQ_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/notifications-dlq',
  POWERTOOLS_LOG_LEVEL: 'SILENT',
  NODE_OPTIONS: '--enable-source-maps',
};

export interface ColdStartRow {
  readonly functionId: string;
  readonly sdk: readonly string[];
  readonly bundleBytes: number;
  readonly baselineBytes: number;
  readonly importMs: number;
  readonly baselineMs: number;
  /** Undefined for a function that holds no SDK client: there is nothing to compare with. */
  readonly ratio: number | undefined;
  readonly holdsFormReader: boolean;
  readonly takesForms: boolean;
  /** Other functions' declarations the bundle holds: their operations' text, dead weight. */
  readonly othersDeclarations: readonly string[];
  /** Said in place of a ratio: a row that is no function. */
  readonly note?: string;
  /** The machine's 1-minute load average when the row's imports ended. */
  readonly load: number;
}

interface BundleContents {
  /** The SDK packages whose clients it builds. */
  readonly sdk: string[];
  readonly holdsFormReader: boolean;
  /** The function folders whose declaration the bundle holds. */
  readonly declarations: string[];
}

async function bundle(
  entry: string,
  outfile: string,
  define: Readonly<Record<string, string>> = {},
): Promise<BundleContents> {
  const result = await build({
    ...LAMBDA_BUILD_OPTIONS,
    define: { ...define },
    entryPoints: [entry],
    outfile,
    metafile: true,
    // The baseline's entry sits outside the repository; the SDK is still the repository's.
    nodePaths: [join(REPOSITORY_ROOT, 'node_modules')],
  });
  const packages = new Set<string>();
  // What the bundle holds: a module esbuild shook out entirely is an input of 0 bytes.
  const held = Object.values(result.metafile.outputs).flatMap((output) =>
    Object.entries(output.inputs)
      .filter(([, used]) => used.bytesInOutput > 0)
      .map(([input]) => input),
  );
  for (const input of held) {
    const match = /node_modules\/(@aws-sdk\/[^/]+)\//.exec(input.split(sep).join('/'));
    if (match?.[1] !== undefined && match[1] in SDK_CLIENTS) packages.add(match[1]);
  }
  // The document client wraps the one DynamoDB client the function builds: not a second.
  if (packages.has('@aws-sdk/lib-dynamodb')) packages.delete('@aws-sdk/client-dynamodb');
  return {
    sdk: [...packages].sort(),
    holdsFormReader: held.some((input) => input.split(sep).join('/').endsWith(FORM_READER)),
    declarations: held.flatMap((input) => DECLARATION.exec(input.split(sep).join('/'))?.[2] ?? []),
  };
}

/** Milliseconds to import the bundle in a fresh process, measured inside it. */
function importOnce(file: string): Promise<number> {
  const script = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); process.stdout.write(String(performance.now() - t));`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { PATH: process.env.PATH ?? '', ...ENVIRONMENT },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      const ms = Number(out);
      if (code === 0 && Number.isFinite(ms)) resolve(ms);
      else reject(new Error(`importing ${file} failed (${String(code)}): ${err.slice(0, 500)}`));
    });
  });
}

export async function benchColdStarts(workDir: string): Promise<ColdStartRow[]> {
  const functions = SERVICE_FUNCTIONS.map((fn) => ({
    functionId: fn.id,
    entry: fn.entry,
    define: bundleConstantsOf(fn),
  }));
  const rows: ColdStartRow[] = [await benchTracerAlone(join(workDir, 'tracer'))];
  for (const { functionId, entry, define } of functions) {
    const dir = join(workDir, functionId);
    await mkdir(dir, { recursive: true });
    const file = join(dir, 'index.mjs');
    const { sdk, holdsFormReader, declarations } = await bundle(
      join(REPOSITORY_ROOT, entry),
      file,
      define,
    );
    const own = entry.split('/')[1];
    const othersDeclarations = SERVES_EVERY_OPERATION.has(functionId)
      ? []
      : declarations.filter((folder) => folder !== own);
    const baselineEntry = join(dir, 'baseline-entry.mjs');
    await writeFile(
      baselineEntry,
      sdk.length === 0
        ? 'export const clients = [];\n'
        : `${TRACER}\nexport const clients = [];\n${sdk.map((name) => SDK_CLIENTS[name]).join('\n')}\n`,
    );
    const baselineFile = join(dir, 'baseline.mjs');
    await bundle(baselineEntry, baselineFile);
    // Warm the disk cache, then alternate so that drift falls on both alike.
    await importOnce(file);
    await importOnce(baselineFile);
    const imports: number[] = [];
    const base: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      imports.push(await importOnce(file));
      base.push(await importOnce(baselineFile));
    }
    const importMs = median(imports);
    const baselineMs = median(base);
    rows.push({
      functionId,
      sdk,
      bundleBytes: (await stat(file)).size,
      baselineBytes: (await stat(baselineFile)).size,
      importMs,
      baselineMs,
      ratio: sdk.length === 0 ? undefined : importMs / baselineMs,
      holdsFormReader,
      takesForms: FORM_TAKERS.has(functionId),
      othersDeclarations,
      load: loadAverage(),
    });
  }
  return rows;
}

/** What the tracer in every baseline costs on its own: its bundle against an empty one. */
async function benchTracerAlone(dir: string): Promise<ColdStartRow> {
  await mkdir(dir, { recursive: true });
  const files = { tracer: join(dir, 'tracer.mjs'), empty: join(dir, 'empty.mjs') };
  await writeFile(join(dir, 'tracer-entry.mjs'), `${TRACER}\nexport { tracer };\n`);
  await writeFile(join(dir, 'empty-entry.mjs'), 'export const nothing = 0;\n');
  await bundle(join(dir, 'tracer-entry.mjs'), files.tracer);
  await bundle(join(dir, 'empty-entry.mjs'), files.empty);
  await importOnce(files.tracer);
  await importOnce(files.empty);
  const own: number[] = [];
  const base: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    own.push(await importOnce(files.tracer));
    base.push(await importOnce(files.empty));
  }
  return {
    functionId: '(tracer alone)',
    sdk: [],
    bundleBytes: (await stat(files.tracer)).size,
    baselineBytes: (await stat(files.empty)).size,
    importMs: median(own),
    baselineMs: median(base),
    ratio: undefined,
    holdsFormReader: false,
    takesForms: false,
    othersDeclarations: [],
    note: 'in every baseline',
    load: loadAverage(),
  };
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;

/** A bundle that holds the form reader without taking a form carries dead weight. */
const formReaderMisplaced = (row: ColdStartRow) => row.holdsFormReader && !row.takesForms;

const formColumn = (row: ColdStartRow) =>
  [
    formReaderMisplaced(row) ? 'form reader MISPLACED' : row.holdsFormReader ? 'form reader' : '',
    row.othersDeclarations.length === 0
      ? ''
      : `OTHER DECLARATIONS: ${row.othersDeclarations.join(', ')}`,
  ]
    .filter((note) => note !== '')
    .join('; ');

export function coldStartReport(rows: readonly ColdStartRow[]): string {
  const lines = rows.map((row) => {
    const verdict =
      row.ratio === undefined
        ? (row.note ?? 'no SDK client')
        : `${row.ratio.toFixed(2)}  ${row.ratio <= COLD_START_RATIO_TARGET ? 'ok' : 'MISSED'}`;
    return `  ${row.functionId.padEnd(22)} ${kb(row.bundleBytes).padStart(8)} ${row.importMs.toFixed(1).padStart(7)} ms   ${kb(row.baselineBytes).padStart(8)} ${row.baselineMs.toFixed(1).padStart(7)} ms   ${verdict.padEnd(22)} ${row.load.toFixed(2).padStart(5)}  ${formColumn(row)}`.trimEnd();
  });
  return [
    `Cold import in a fresh Node ${process.versions.node} process, median of ${RUNS} (function vs a bundle of only its SDK clients, captured by the tracer; target <= ${COLD_START_RATIO_TARGET}; the multipart form reader only where a form is taken, and no other function's declaration)`,
    `  ${'function'.padEnd(22)} ${'bundle'.padStart(8)} ${'import'.padStart(10)}   ${'baseline'.padStart(8)} ${'import'.padStart(10)}   ${'ratio'.padEnd(22)} ${'load'.padStart(5)}`,
    ...lines,
  ].join('\n');
}

export const coldStartsMet = (rows: readonly ColdStartRow[]): boolean =>
  rows.every(
    (row) =>
      (row.ratio === undefined || row.ratio <= COLD_START_RATIO_TARGET) &&
      !formReaderMisplaced(row) &&
      row.othersDeclarations.length === 0,
  );
