import type { KnipConfig } from 'knip';

/**
 * Dead code held off (`npm run lint:dead`): unused files, exports, types and dependencies.
 * Knip follows imports from the entries below; the vitest, eslint, prettier, markdownlint and
 * remark plugins add their configs and test files, and the package.json scripts add the CLIs
 * they run. `#shared/*`-style imports resolve through package.json "imports".
 *
 * An entry or project file marked `!` is production code: `knip --production` follows only
 * those, so an export or a file that only tests use is reported there. Each handler's
 * `createHandler`, the seam the local stage and the tests build handlers on, is an entry's
 * export and never is. Any other export kept for tests alone says so, and why, with a JSDoc
 * `@internal` tag: --production passes over it, the plain run still reports it once no test
 * uses it.
 */
const config: KnipConfig = {
  entry: [
    // Lambda's entries: the function table names them by path; nothing imports them.
    'functions/*/handler.ts!',
    // The CDK app cdk.json runs.
    'infra/app.ts!',
    // The CLIs package.json's scripts run; listed so that --production follows them too.
    'infra/{local/start,local/token-cli,local/openapi-cli,local/event-cli,local/invoke-cli,admin/admin,smoke/smoke}.ts!',
    // `npm run bench` and the processes bench-run.ts starts by path.
    'test/bench/{bench,bare-token-service,s3rver-process,stage-process}.ts',
    // Functions the tests deploy on the local stage by path, as routes.ts names handlers.
    'test/support/{fixture-function,slow-route-function}.ts',
  ],
  project: ['{functions,shared,infra}/**/*.ts!', 'test/**/*.ts', '*.{ts,js}'],
  ignoreDependencies: [
    // Read at run time by a computed specifier (functions/api-docs/handler.ts resolves
    // `${SWAGGER_UI_PACKAGE}/<file>`) and shipped as files by the bundler's options.
    'swagger-ui-dist',
    // The typed-client test (test/e2e/typed-client.test.ts) runs openapi-typescript's binary
    // by path and writes a client that imports openapi-fetch into .test-artifacts/.
    'openapi-typescript',
    'openapi-fetch',
  ],
};

export default config;
