/**
 * The environment a test gives a CLI it runs as a process, as a clean shell would: PATH and
 * `env`, and of the test run's own only Node's compile cache (vitest.config.ts), which changes
 * how fast the CLI's modules load and nothing they do.
 */
export function cliEnvironment(env: Record<string, string> = {}): Record<string, string> {
  const cache = process.env.NODE_COMPILE_CACHE;
  return {
    PATH: process.env.PATH ?? '',
    ...(cache === undefined ? {} : { NODE_COMPILE_CACHE: cache }),
    ...env,
  };
}
