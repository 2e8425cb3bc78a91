/** What a realtime token says and for how long. */
export interface RealtimeTokenConfig {
  /** This stage's room stage: `production`, `development` or `local`. */
  readonly stage: string;
  /** `iss`: the stage's base URL. */
  readonly issuer: string;
  /** `aud`. */
  readonly audience: string;
  /** Token lifetime in seconds, at most MAX_REALTIME_TOKEN_SECONDS. */
  readonly tokenSeconds: number;
}

/** The longest a realtime token may live: a day. */
export const MAX_REALTIME_TOKEN_SECONDS = 86_400;
