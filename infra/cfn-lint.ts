/**
 * `npm run lint:cfn`: every stage's two stacks synthesized into cdk.out/<stage>/ (and
 * development's with a custom domain, into cdk.out/development-custom-domain/) and checked
 * by cfn-lint with the repository's .cfnlintrc.yaml. Prints cfn-lint's findings per stage and
 * exits 1 on any finding (a warning is a finding too: fix it or ignore it there, with its
 * reason), 2 when cfn-lint is missing or fails to run.
 */
import { execFile, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { App } from 'aws-cdk-lib';
import { addServiceStacks } from './service.ts';
import { STAGE_NAMES, type StageName, stageConfigOf } from './stages.ts';

const REPOSITORY_ROOT = resolve(import.meta.dirname, '..');
/** The issuer `npm run synth` passes: production and development have no default. */
const JWT_ISSUER = 'https://issuer.example.invalid/';
/**
 * The region `cdk synth` gives the app when no AWS profile names one (it sets
 * CDK_DEFAULT_REGION), which is also cfn-lint's default: the templates and the check agree.
 */
const REGION =
  process.env.CDK_DEFAULT_REGION ??
  process.env.AWS_REGION ??
  process.env.AWS_DEFAULT_REGION ??
  'us-east-1';
const CONFIG_FILE = join(REPOSITORY_ROOT, '.cfnlintrc.yaml');

const CDK_JSON_CONTEXT = (
  JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  }
).context;

/** What is linted: every stage as it starts, and one with the settings that add resources. */
interface Variant {
  /** Its folder under cdk.out/. */
  readonly name: string;
  readonly stage: StageName;
  /** Settings beyond the stage's defaults, as `-c` would give them. */
  readonly settings: Readonly<Record<string, string>>;
}

const VARIANTS: readonly Variant[] = [
  ...STAGE_NAMES.map((stage) => ({ name: stage, stage, settings: {} })),
  {
    // The custom domain: its name in the data stack, its mapping in the API stack.
    name: 'development-custom-domain',
    stage: 'development',
    settings: {
      apiDomainName: 'files-dev.example.com',
      apiCertificateArn: `arn:aws:acm:${REGION}:123456789012:certificate/0f1e2d3c-4b5a-6978-8091-a2b3c4d5e6f7`,
    },
  },
];

/**
 * What `cdk synth -c stage=<stage> -c jwtIssuer=… -o cdk.out/<stage>` writes, in this process
 * and without bundling the functions: the CLI's own context (path and asset metadata, the
 * version-reporting resource) makes the same templates, but for the assets' hashes in the
 * functions' S3 keys. Bundling is what made three `cdk synth` runs slow; `npm run synth`
 * still bundles.
 */
function synthesize({ name, stage, settings }: Variant): string[] {
  const outdir = join(REPOSITORY_ROOT, 'cdk.out', name);
  const app = new App({
    outdir,
    context: {
      ...CDK_JSON_CONTEXT,
      'aws:cdk:enable-path-metadata': true,
      'aws:cdk:enable-asset-metadata': true,
      'aws:cdk:version-reporting': true,
      'aws:cdk:bundling-stacks': [],
      stage,
      jwtIssuer: JWT_ISSUER,
      ...settings,
    },
  });
  const stacks = addServiceStacks(app, {
    stage: stageConfigOf(app),
    root: REPOSITORY_ROOT,
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: REGION },
  });
  app.synth();
  return [stacks.data, stacks.api].map((stack) => join(outdir, stack.templateFile));
}

interface LintRun {
  readonly exitCode: number;
  readonly output: string;
}

/** cfn-lint's exit code is a bit mask: 2 errors, 4 warnings, 8 informational; 1 it failed. */
async function cfnLint(args: readonly string[]): Promise<LintRun> {
  return new Promise((resolveRun) => {
    execFile('cfn-lint', [...args], { cwd: REPOSITORY_ROOT }, (error, stdout, stderr) => {
      const output = stdout + stderr;
      if (error === null) resolveRun({ exitCode: 0, output });
      else resolveRun({ exitCode: typeof error.code === 'number' ? error.code : 1, output });
    });
  });
}

const probe = spawnSync('cfn-lint', ['--version'], { encoding: 'utf8' });
if (probe.error !== undefined || probe.status !== 0) {
  const missing =
    probe.error !== undefined && 'code' in probe.error && probe.error.code === 'ENOENT';
  process.stderr.write(
    missing
      ? 'lint:cfn: cfn-lint is not on PATH (pip install cfn-lint)\n'
      : `lint:cfn: cfn-lint --version failed: ${probe.error?.message ?? probe.stderr}\n`,
  );
  process.exit(2);
}
process.stdout.write(`${probe.stdout.trim()} in ${REGION}, config .cfnlintrc.yaml\n`);

const templates = VARIANTS.map((variant) => {
  try {
    return { stage: variant.name, files: synthesize(variant) };
  } catch (error) {
    process.stderr.write(
      `lint:cfn: ${variant.name} did not synthesize: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  }
});
// One cfn-lint per stage, all at once: each spends seconds loading its schemas.
const runs = await Promise.all(
  templates.map(({ files }) =>
    cfnLint(['--config-file', CONFIG_FILE, '--regions', REGION, '--', ...files]),
  ),
);
let failed = false;
for (const [i, { stage, files }] of templates.entries()) {
  const run = runs[i];
  if (run === undefined) continue;
  const found = run.output.trim();
  process.stdout.write(
    `\n${stage}: ${files.map((file) => file.slice(REPOSITORY_ROOT.length + 1)).join(', ')}\n` +
      `${found === '' ? 'no findings' : found}\n`,
  );
  if (run.exitCode !== 0) failed = true;
}
process.stdout.write(failed ? '\ncfn-lint found problems\n' : '\ncfn-lint: every stage clean\n');
process.exitCode = failed ? 1 : 0;
