import type { BuildOptions } from 'esbuild';
import { BUNDLE } from '#infra/constructs/service-function.ts';

/** The house construct's esbuild settings in esbuild's own terms: what CDK deploys. */
export const LAMBDA_BUILD_OPTIONS = {
  bundle: true,
  logLevel: 'silent',
  format: BUNDLE.format,
  target: BUNDLE.target,
  platform: BUNDLE.platform,
  minify: BUNDLE.minify,
  sourcemap: BUNDLE.sourcemap,
  sourcesContent: BUNDLE.sourcesContent,
  mainFields: [...BUNDLE.mainFields],
  banner: { js: BUNDLE.banner },
} satisfies BuildOptions;
