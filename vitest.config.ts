import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { waitLimit } from './test/support/wait-limit.ts';

const standIns = './test/support/stand-ins.global-setup.ts';

/*
 * Node's compile cache for every process of the run, inherited from here: the workers and
 * each `npm start`, CLI and example a test spawns (about sixty) compile the SDK, zod and the
 * CLIs' own modules once per run, not once per process. A spawned CLI then takes half the CPU.
 * The cache is keyed by each file's contents, so a checkout never reads another's code.
 */
process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), 'node-compile-cache');

/*
 * `isolate: false` where it is set: the files of a worker share one module graph instead of
 * importing the SDK, zod and the handlers again per file (about 15 s of `npm test` on two
 * cores). What must not leak is kept per file by the tests themselves: each e2e and
 * integration file gets its own table, bucket and local stage, and no test mocks a module.
 */
/*
 * Every time limit goes through `waitLimit` (TEST_PATIENCE, test/support/wait-limit.ts), set so
 * the suite passes with both cores of a two-core machine busy; a test still ends as soon as
 * it is done.
 */
export default defineConfig({
  test: {
    /*
     * Node's own `import` in the workers, not Vite's module runner: Node strips the types
     * (the CLIs run the same way), and the compile cache above then covers our modules too,
     * where the runner transformed and compiled them again in every worker (about 10 s of the
     * e2e suite's CPU). No test mocks a module, so Vitest's loader hooks are off as well.
     */
    experimental: { viteModuleRunner: false, nodeLoader: false },
    // Three files at once on two cores, where Vitest's default is one: most of a file's time
    // is spent waiting on a stage, a webhook's pace or a timeout (docs/testing.md).
    maxWorkers: 3,
    // Vitest's defaults (5 s, 10 s, 10 s) for the unit suite; each project below sets its own.
    testTimeout: waitLimit(30_000),
    hookTimeout: waitLimit(60_000),
    teardownTimeout: waitLimit(60_000),
    reporters: ['default', './test/support/summary-reporter.ts'],
    /*
     * Two groups, one after the other. First the unit and infra files, in one worker and one
     * module graph: a worker each had imported aws-cdk-lib, cdk-nag, the SDK and zod again,
     * about 8 s of CPU, and these files wait on nothing, so one worker beside the checks
     * (`npm test` runs them at once) keeps both cores busy. Then the suites that wait on
     * stages, three workers at once. Vitest wants a group of its own for each worker count.
     */
    sequence: { groupOrder: 1 },
    env: {
      /*
       * Tracing is off outside Lambda (Powertools reads AWS_EXECUTION_ENV), yet the X-Ray SDK
       * in its automatic mode hooks every promise of a process that imports it: twelve times
       * the CPU per `await` in a loop, and about 7% of the e2e files' CPU. Manual mode leaves
       * the hook out and changes nothing else while tracing is off. The observability project,
       * which runs the handlers as Lambda does, keeps the automatic mode.
       */
      AWS_XRAY_MANUAL_MODE: 'true',
      POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'SILENT',
      // As on the local stage; the test that reads the metrics turns them on for its file.
      POWERTOOLS_METRICS_DISABLED: 'true',
      POWERTOOLS_METRICS_NAMESPACE: 'FileService/test',
    },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          isolate: false,
          maxWorkers: 1,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          isolate: false,
          globalSetup: [standIns],
          testTimeout: waitLimit(60_000),
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          isolate: false,
          globalSetup: [standIns],
          testTimeout: waitLimit(120_000),
          hookTimeout: waitLimit(120_000),
        },
      },
      {
        extends: true,
        test: {
          // The handlers' EMF lines: metrics on, in a module graph of its own.
          name: 'observability',
          include: ['test/observability/**/*.test.ts'],
          globalSetup: [standIns],
          // On demand, as Lambda sets it: the stage's first invocation is then a cold start.
          env: {
            POWERTOOLS_METRICS_DISABLED: 'false',
            AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
            // The X-Ray SDK's automatic mode, as on Lambda (read when it is first imported).
            AWS_XRAY_MANUAL_MODE: '',
          },
          testTimeout: waitLimit(120_000),
          hookTimeout: waitLimit(120_000),
        },
      },
      {
        extends: true,
        test: {
          // The recorded FastAPI reference's answers, replayed against the local stage.
          name: 'parity',
          include: ['test/oracle/**/*.test.ts'],
          globalSetup: [standIns],
          testTimeout: waitLimit(240_000),
          hookTimeout: waitLimit(120_000),
        },
      },
      {
        extends: true,
        test: {
          name: 'hardening',
          include: ['test/hardening/**/*.test.ts'],
          globalSetup: [standIns],
          // One file at a time: the load's zero errors and the faults' timing hold on two
          // cores only without the fuzzer beside them.
          fileParallelism: false,
          // Its own group: its worker count is not the others'.
          sequence: { groupOrder: 2 },
          testTimeout: waitLimit(240_000),
          hookTimeout: waitLimit(240_000),
        },
      },
      {
        extends: true,
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          isolate: false,
          maxWorkers: 1,
          sequence: { groupOrder: 0 },
          testTimeout: waitLimit(120_000),
          hookTimeout: waitLimit(120_000),
        },
      },
    ],
  },
});
