import { posix } from 'node:path';
import { type Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, LoggingFormat, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

export interface ServiceFunctionProps {
  /** The handler module, absolute path; it exports `handler`. */
  readonly entry: string;
  readonly description: string;
  readonly environment?: Readonly<Record<string, string>>;
  /** Memory also sets the CPU share: 1,769 MB is one full vCPU. */
  readonly memorySize: number;
  readonly timeout: Duration;
  readonly logRetention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
  /**
   * Files the function reads at run time, relative to the repository root (where the lock
   * file is); copied into the bundle at the same relative path.
   */
  readonly bundledFiles?: readonly string[];
  /** Constants esbuild compiles into the bundle (`define`): name to a JavaScript expression. */
  readonly bundleConstants?: Readonly<Record<string, string>>;
}

/** A word the shell takes literally, whatever the checkout's path holds. */
const shellQuoted = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/** Shell commands that copy `files` from the project into the bundle, keeping their paths. */
export function bundledFileCommands(
  files: readonly string[],
  inputDir: string,
  outputDir: string,
): string[] {
  return files.map((file) => {
    const target = posix.join(outputDir, file);
    return `mkdir -p ${shellQuoted(posix.dirname(target))} && cp ${shellQuoted(posix.join(inputDir, file))} ${shellQuoted(target)}`;
  });
}

/**
 * esbuild settings of every function, shared with `npm run bench` so that it measures what
 * is deployed. The AWS SDK is bundled, not taken from the runtime: the version we test is
 * the version that runs, and a tree-shaken ESM bundle loads faster than the runtime's copy.
 */
export const BUNDLE = {
  format: 'esm',
  target: 'node24',
  platform: 'node',
  minify: true,
  sourcemap: true,
  sourcesContent: false,
  mainFields: ['module', 'main'],
  // CommonJS dependencies in an ESM bundle may still call require().
  banner:
    "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
} as const;

/**
 * The house function: Node.js 24 on arm64, one ESM bundle built by the local esbuild
 * (minified, with source maps), X-Ray tracing, JSON logs into a log group of its own with the
 * stage's retention, and a role of its own that may write to that log group and to X-Ray,
 * and nothing else until a grant adds to it.
 */
export class ServiceFunction extends Construct {
  readonly function: NodejsFunction;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });
    // Not AWSLambdaBasicExecutionRole: that one may write to every log group in the account.
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `${props.description} (function role)`,
    });
    this.logGroup.grantWrite(role);
    this.function = new NodejsFunction(this, 'Function', {
      entry: props.entry,
      handler: 'handler',
      description: props.description,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize,
      timeout: props.timeout,
      role,
      tracing: Tracing.ACTIVE,
      loggingFormat: LoggingFormat.JSON,
      logGroup: this.logGroup,
      environment: { NODE_OPTIONS: '--enable-source-maps', ...props.environment },
      bundling: {
        format: { esm: OutputFormat.ESM, cjs: OutputFormat.CJS }[BUNDLE.format],
        target: BUNDLE.target,
        minify: BUNDLE.minify,
        sourceMap: BUNDLE.sourcemap,
        sourcesContent: BUNDLE.sourcesContent,
        mainFields: [...BUNDLE.mainFields],
        banner: BUNDLE.banner,
        externalModules: [],
        ...(props.bundleConstants === undefined ? {} : { define: { ...props.bundleConstants } }),
        ...(props.bundledFiles === undefined
          ? {}
          : {
              commandHooks: {
                beforeBundling: () => [],
                beforeInstall: () => [],
                afterBundling: (inputDir, outputDir) =>
                  bundledFileCommands(props.bundledFiles ?? [], inputDir, outputDir),
              },
            }),
      },
    });
    // X-Ray's is the only statement on * that a function's role may hold (the infra tests check).
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'X-Ray tracing: xray:PutTraceSegments and xray:PutTelemetryRecords take no resource narrower than *',
    });
  }
}
