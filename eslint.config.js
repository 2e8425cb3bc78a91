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
      // zod's `z` object holds every export, so a bundle that imports it keeps all of zod
      // (about 350 KB more per function); the namespace import is tree-shaken.
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "ImportDeclaration[source.value='zod'][importKind='value'] > ImportSpecifier[imported.name='z'][importKind='value']",
          message: "Use `import * as z from 'zod'`: the z object defeats tree shaking.",
        },
      ],
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
  {
    files: ['**/*.js'],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
