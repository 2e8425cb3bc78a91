/**
 * Settings come from the function's environment and are read once, at cold start, by the
 * module that needs them: a missing one stops the container before it takes a request.
 */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function requiredEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined || value.trim() === '') {
    throw new ConfigError(`Environment variable ${name} must be set`);
  }
  return value;
}

export function optionalEnv(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value.trim() === '' ? undefined : value;
}

/** The JWT claim that holds the caller's user id (`USER_ID_CLAIM`, default `sub`). */
export const userIdClaimName = (): string => optionalEnv('USER_ID_CLAIM') ?? 'sub';
