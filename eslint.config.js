import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** The platform's edges: HTTP, API documents, storage, configuration, wiring. */
const EDGE_FOLDERS = ['api', 'config', 'docs', 'http', 'openapi', 'storage', 'wiring'];
/** The platform's HTTP folders: middlewares and bodies, the route table, their documents. */
const HTTP_FOLDERS = ['api', 'docs', 'http', 'openapi'];
/**
 * shared/'s folders that are the platform, not a feature: its edges, what every feature shares
 * (`domain`: outcomes, pages, files' common record), the declarations' types (`functions`)
 * and observability. Every other folder is a feature, so a new one is held to the layers
 * below from its first file, with no list to join.
 */
const PLATFORM_FOLDERS = [...EDGE_FOLDERS, 'domain', 'functions', 'observability'];
const SHARED_FOLDERS = readdirSync(new URL('shared/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const gone = PLATFORM_FOLDERS.filter((folder) => !SHARED_FOLDERS.includes(folder));
if (gone.length > 0)
  throw new Error(`eslint.config.js names no folder of shared/: ${gone.join(', ')}`);
/**
 * The features: each folder of shared/ holds a feature's use cases, models and ports at its
 * top, its adapters (and their builders) in `adapters/`, its request and response schemas in
 * `api/`.
 */
const FEATURES = SHARED_FOLDERS.filter((folder) => !PLATFORM_FOLDERS.includes(folder)).sort();
/** Where use cases, models and ports live: the top of each feature folder, and `domain`. */
const DOMAIN_FILES = [
  ...FEATURES.map((feature) => `shared/${feature}/*.ts`),
  'shared/domain/**/*.ts',
];
/** A feature's adapters, and what every adapter shares (shared/storage). */
const ADAPTER_FILES = [
  ...FEATURES.map((feature) => `shared/${feature}/adapters/**/*.ts`),
  'shared/storage/**/*.ts',
];
/** A relative or `#shared/` import of one of these folders of shared/. */
const sharedFolder = (folders) => `^(#shared/|(\\.\\./)+)(${folders.join('|')})/`;
/** An import of a feature's edge: its `adapters/` or `api/` folder, its own or another's. */
const featureEdge = (edges) =>
  `^(#shared/|\\./|(\\.\\./)+)((${FEATURES.join('|')})/)?(${edges.join('|')})/`;
/** The storage layout's modules: the keys, and every item schema. */
const LAYOUT_MODULE = '(^|/)(storage/(keys|[a-z-]+-item|file-items)|adapters/[a-z-]+-item)\\.ts$';

/**
 * Storage layout, which only the adapters know (shared/storage/keys.ts): the table's
 * partition and sort-key prefixes, and the bucket's key prefixes. A use case that writes one
 * builds or matches a key; it asks its port instead. Every table key prefix is an upper-case
 * word and `#` (`USER#`, `FILE#`, …), so a new item kind's is caught without a list to join.
 */
const SORT_KEY_PREFIX = '/[A-Z][A-Z_]*#/';
/**
 * The bucket's keys are a lower-case word and `/`, then ids (`users/42/files/7`): a string
 * or a template's head that starts so, but not a media type's (`text/plain`).
 */
// esquery ends a regular expression at its first slash: \x2F is the one in the key.
const OBJECT_KEY_PREFIX = '/^[a-z][a-z-]*\\x2F([0-9]|$)/';
const STORAGE_LAYOUT = {
  selector: `:matches(Literal[raw=${SORT_KEY_PREFIX}], TemplateElement[value.raw=${SORT_KEY_PREFIX}], Literal[value=${OBJECT_KEY_PREFIX}], TemplateElement[value.raw=${OBJECT_KEY_PREFIX}])`,
  message: "Keys are the adapters' layout (shared/storage/keys.ts): ask the port for them.",
};

// zod's `z` object holds every export, so a bundle that imports it keeps all of zod
// (about 350 KB more per function); the namespace import is tree-shaken.
const ZOD_NAMESPACE_IMPORT = {
  selector:
    "ImportDeclaration[source.value='zod'][importKind='value'] > ImportSpecifier[imported.name='z'][importKind='value']",
  message: "Use `import * as z from 'zod'`: the z object defeats tree shaking.",
};

/**
 * A test's wait limits all come from `waitLimit(ms)` (test/support/wait-limit.ts), so one factor,
 * TEST_PATIENCE, gives a busy machine more time: no limit written as a number, and no
 * `expect.poll` or `vi.waitFor` on its 1 s default.
 */
const PATIENT = 'take the limit from `waitLimit(ms)` (test/support/wait-limit.ts)';
/** A number written out: a literal, or arithmetic on literals alone. */
const FIXED = 'Literal[raw=/^[0-9]/], BinaryExpression:not(:has(Identifier))';
/** A limit not made by waitLimit(): a number, or any other call. */
const UNSCALED = `:matches(${FIXED}, CallExpression:not([callee.name='waitLimit']))`;
const POLL =
  'CallExpression[callee.object.name=/^(expect|vi)$/][callee.property.name=/^(poll|waitFor)$/]';
/** it, test, describe, bench and the hooks; also it.concurrent(...) and it.each(...)(...). */
const TEST_OR_HOOK =
  'CallExpression:matches([callee.name=/^(it|test|describe|suite|bench|beforeAll|afterAll|beforeEach|afterEach)$/], [callee.object.name=/^(it|test|describe|suite)$/], [callee.callee.object.name=/^(it|test|describe|suite)$/])';
const PATIENT_WAITS = [
  {
    selector: `${POLL}:matches([arguments.length<2], :has(> ObjectExpression:not(:has(> Property[key.name='timeout']))))`,
    message: 'expect.poll and vi.waitFor wait 1 s by default: pass { timeout: waitLimit(ms) }.',
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
  // examples/typescript/file-service.d.ts is generated from the OpenAPI document.
  {
    ignores: [
      'node_modules/',
      'cdk.out/',
      '.data/',
      'coverage/',
      '.test-artifacts/',
      'examples/typescript/file-service.d.ts',
    ],
  },
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
      // The house declares no enum (tsconfig's erasableSyntaxOnly refuses them): the rule
      // guards libraries' enums only, so it runs where CDK's are used (below). Everywhere it
      // cost about 2 s of every `npm run lint` and found nothing it could find.
      '@typescript-eslint/no-unsafe-enum-assignment': 'off',
    },
  },
  {
    files: ['infra/**/*.ts', 'test/infra/**/*.ts', 'test/support/cdk-app.ts'],
    rules: { '@typescript-eslint/no-unsafe-enum-assignment': 'error' },
  },
  // The layers (docs/architecture.md). The domain (use cases, models, ports) imports no edge:
  // not HTTP, not the SDK or its adapters, not configuration, not the local stage; and it
  // neither builds nor matches a storage key.
  {
    files: DOMAIN_FILES,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: LAYOUT_MODULE,
              message: "Keys and item schemas are storage layout, the adapters' own: ask the port.",
            },
            {
              // Keys and item schemas have a message of their own, above.
              regex: `^(?!.*${LAYOUT_MODULE})(${sharedFolder(EDGE_FOLDERS)}|${featureEdge(['adapters', 'api'])})`,
              message: 'The domain raises outcomes and takes ports; edges map and implement them.',
            },
            {
              regex: '^(@aws-sdk/|@middy/|@aws-lambda-powertools/(?!logger)|#infra/|#functions/)',
              message:
                "The domain reaches AWS only through its ports (each feature's adapters/ implements them).",
            },
            {
              regex: '^node:(fs|http|https|child_process)',
              message: 'The domain does no I/O of its own; take a port.',
            },
          ],
        },
      ],
      'no-restricted-syntax': ['error', ZOD_NAMESPACE_IMPORT, STORAGE_LAYOUT],
    },
  },
  // Adapters implement the domain's ports on the SDK: they know no HTTP, configuration or
  // wiring (they are given clients and names), and nothing of infra or the handlers.
  {
    files: ADAPTER_FILES,
    // The sources name each resource by the variable a function reads it from.
    ignores: ['shared/storage/adapter-sources.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `${sharedFolder(HTTP_FOLDERS)}|${featureEdge(['api'])}`,
              message: 'An adapter speaks to its store, not HTTP: HTTP maps at the edge.',
            },
            {
              regex: `${sharedFolder(['config', 'wiring'])}|^#(infra|functions)/`,
              message: 'An adapter is given its clients and names; wiring builds it.',
            },
          ],
        },
      ],
    },
  },
  // Configuration is the environment's zod schema: it imports nothing of the service.
  {
    files: ['shared/config/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!zod$|\\./)',
              message: 'Configuration imports zod and nothing of the service.',
            },
          ],
        },
      ],
    },
  },
  // Nothing deployed takes anything from the local stage: not the CDK app, its stacks and
  // constructs, nor the stage config or the smoke check. The operator CLI (infra/admin) may:
  // it is a tool, run against the local stage as against deployed ones, and for the local
  // one it needs the stage's own endpoints, credentials, key file and data folder. So may
  // `npm run render` (infra/render), which tables the local stage's variables. Tests (test/)
  // may too.
  {
    files: ['infra/**/*.ts'],
    ignores: ['infra/local/**', 'infra/admin/**', 'infra/render/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(#infra/|\\./|(\\.\\./)+)local/',
              message: 'The local stage is for tests and tools; deployed code takes nothing of it.',
            },
          ],
        },
      ],
    },
  },
  // The CDK app adds SAM's parameters and endpoints to the local stage's template, and to it
  // only (infra/local/sam/): the one part of the local stage it takes.
  {
    files: ['infra/app.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(#infra/|\\./)local/(?!sam/)',
              message: 'The CDK app takes only infra/local/sam/ of the local stage.',
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
