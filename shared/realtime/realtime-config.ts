import { optionalEnv, requiredEnv } from '../config.ts';

/** What a realtime token says and for how long; read from the environment at cold start. */
export interface RealtimeTokenConfig {
  /** This deployment's room environment: `production`, `development` or `local`. */
  readonly environment: string;
  /** `iss`: the stage's base URL. */
  readonly issuer: string;
  /** `aud`: `realtime` unless REALTIME_AUDIENCE says otherwise. */
  readonly audience: string;
  /** Token lifetime in seconds; 3600 unless REALTIME_TOKEN_SECONDS says otherwise. */
  readonly tokenSeconds: number;
}

/** The longest a realtime token may live: a day. */
export const MAX_REALTIME_TOKEN_SECONDS = 86_400;

export function realtimeTokenConfig(): RealtimeTokenConfig {
  const seconds = Number(optionalEnv('REALTIME_TOKEN_SECONDS') ?? 3600);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_REALTIME_TOKEN_SECONDS) {
    throw new Error(
      `REALTIME_TOKEN_SECONDS must be whole seconds from 1 to ${MAX_REALTIME_TOKEN_SECONDS}`,
    );
  }
  return {
    environment: requiredEnv('STAGE'),
    issuer: requiredEnv('REALTIME_ISSUER'),
    audience: optionalEnv('REALTIME_AUDIENCE') ?? 'realtime',
    tokenSeconds: seconds,
  };
}
