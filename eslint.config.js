import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Where use cases, models and ports live. */
const DOMAIN_FOLDERS = [
  'blobs',
  'data',
  'deal-files',
  'direct-uploads',
  'domain',
  'groups',
  'ids',
  'notifications',
  'queue',
  'realtime',
  'reconcile',
  'removal',
  'user-files',
];
/** The edges: HTTP, API schemas and documents, adapters, configuration, wiring. */
const EDGE_FOLDERS = ['adapters', 'api', 'config', 'docs', 'http', 'openapi', 'schemas', 'wiring'];

// zod's `z` object holds every export, so a bundle that imports it keeps all of zod
// (about 350 KB more per function); the namespace import is tree-shaken.
const ZOD_NAMESPACE_IMPORT = {
  selector:
    "ImportDeclaration[source.value='zod'][importKind='value'] > ImportSpecifier[imported.name='z'][importKind='value']",
  message: "Use `import * as z from 'zod'`: the z object defeats tree shaking.",
};

/**
 * A test's wait limits all come from `patient(ms)` (test/support/patience.ts), so one factor,
 * TEST_PATIENCE, gives a busy machine more time: no limit written as a number, and no
 * `expect.poll` or `vi.waitFor` on its 1 s default.
 */
const PATIENT = 'take the limit from `patient(ms)` (test/support/patience.ts)';
/** A number written out: a literal, or arithmetic on literals alone. */
const FIXED = 'Literal[raw=/^[0-9]/], BinaryExpression:not(:has(Identifier))';
/** A limit not made by patient(): a number, or any other call. */
const UNSCALED = `:matches(${FIXED}, CallExpression:not([callee.name='patient']))`;
const POLL =
  'CallExpression[callee.object.name=/^(expect|vi)$/][callee.property.name=/^(poll|waitFor)$/]';
/** it, test, describe, bench and the hooks; also it.concurrent(...) and it.each(...)(...). */
const TEST_OR_HOOK =
  'CallExpression:matches([callee.name=/^(it|test|describe|suite|bench|beforeAll|afterAll|beforeEach|afterEach)$/], [callee.object.name=/^(it|test|describe|suite)$/], [callee.callee.object.name=/^(it|test|describe|suite)$/])';
const PATIENT_WAITS = [
  {
    selector: `${POLL}:matches([arguments.length<2], :has(> ObjectExpression:not(:has(> Property[key.name='timeout']))))`,
    message: 'expect.poll and vi.waitFor wait 1 s by default: pass { timeout: patient(ms) }.',
  },
  {
    selector: `:matches(${POLL}, ${TEST_OR_HOOK}) > ObjectExpression > Property[key.name='timeout'] > ${UNSCALED}.value`,
    message: `A wait's limit: ${PATIENT}.`,
  },
  {
    selector: `${TEST_OR_HOOK} > :matches(${FIXED})`,
    message: `A test's or hook's time limit: ${PATIENT}.`,
  },
  {
    selector: `CallExpression[callee.object.name='AbortSignal'][callee.property.name='timeout'] > ${UNSCALED}`,
    message: `A request's time limit: ${PATIENT}.`,
  },
];

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', '.data/', 'coverage/', '.test-artifacts/'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      'no-restricted-syntax': ['error', ZOD_NAMESPACE_IMPORT],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  // The layers (docs/architecture.md). The domain (use cases, models, ports) imports no edge:
  // not HTTP, not the SDK or its adapters, not configuration, not the local stage.
  {
    files: [`shared/{${DOMAIN_FOLDERS.join(',')}}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `^(#shared/|(\\.\\./)+)(${EDGE_FOLDERS.join('|')})/`,
              message: 'The domain raises outcomes and takes ports; edges map and implement them.',
            },
            {
              regex: '^(@aws-sdk/|@middy/|@aws-lambda-powertools/(?!logger)|#infra/|#functions/)',
              message:
                'The domain reaches AWS only through its ports (shared/adapters implements them).',
            },
            {
              regex: '^node:(fs|http|https|child_process)',
              message: 'The domain does no I/O of its own; take a port.',
            },
          ],
        },
      ],
    },
  },
  // Configuration is read once, in one module, at cold start.
  {
    files: ['shared/**/*.ts', 'functions/**/*.ts'],
    ignores: ['shared/config/environment.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Read settings through shared/config/environment.ts (readEnvironment).',
        },
      ],
    },
  },
  // Tests wait with patience (PATIENT_WAITS); this list replaces the one above, so zod's too.
  {
    files: ['test/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ZOD_NAMESPACE_IMPORT, ...PATIENT_WAITS] },
  },
  {
    files: ['**/*.js'],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
