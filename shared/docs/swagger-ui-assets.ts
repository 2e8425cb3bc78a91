/**
 * The Swagger UI files /docs serves, straight from the pinned `swagger-ui-dist` package: no
 * CDN, so the page works offline and loads nothing we did not ship.
 */
export const SWAGGER_UI_PACKAGE = 'swagger-ui-dist';

export interface DocsAsset {
  /** The file in the package. */
  readonly file: string;
  readonly contentType: string;
}

/** Served as /docs/<name>. */
export const SWAGGER_UI_ASSETS = {
  'swagger-ui.css': { file: 'swagger-ui.css', contentType: 'text/css; charset=utf-8' },
  'swagger-ui-bundle.js': {
    file: 'swagger-ui-bundle.js',
    contentType: 'text/javascript; charset=utf-8',
  },
  'favicon-32x32.png': { file: 'favicon-32x32.png', contentType: 'image/png' },
} as const satisfies Readonly<Record<string, DocsAsset>>;

/** Our own script that starts Swagger UI (see `docs-page.ts`), served beside the package's. */
export const INITIALIZER_ASSET = 'swagger-initializer.js';

export type DocsAssetName = keyof typeof SWAGGER_UI_ASSETS | typeof INITIALIZER_ASSET;

/** Every name /docs/{asset} serves; any other is a 404. */
export const DOCS_ASSET_NAMES: [DocsAssetName, ...DocsAssetName[]] = [
  INITIALIZER_ASSET,
  ...(Object.keys(SWAGGER_UI_ASSETS) as (keyof typeof SWAGGER_UI_ASSETS)[]),
];

/**
 * What the deployed function needs from the package, relative to the repository root: the
 * assets, the manifest module resolution reads, and the licence they ship under.
 */
export const SWAGGER_UI_FILES: readonly string[] = [
  'package.json',
  'LICENSE',
  'NOTICE',
  ...Object.values(SWAGGER_UI_ASSETS).map((asset) => asset.file),
].map((file) => `node_modules/${SWAGGER_UI_PACKAGE}/${file}`);
