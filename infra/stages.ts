import { LOCAL_AUDIENCE, LOCAL_ISSUER } from './local/identity-provider.ts';

/**
 * Per-stage settings, chosen with `-c stage=production|development|local` (production by
 * default). The identity provider's issuer and audience come from context
 * (`-c jwtIssuer=... -c jwtAudience=...`); production and development have no default
 * issuer, so neither can be deployed trusting a placeholder.
 */
export type StageName = 'production' | 'development' | 'local';

export interface StageConfig {
  readonly name: StageName;
  /** The JWT authorizer's issuer (an https URL serving OpenID discovery). */
  readonly jwtIssuer: string;
  readonly jwtAudiences: readonly string[];
  /** The claim that holds the caller's user id. */
  readonly userIdClaim: string;
  readonly logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /** Production keeps its data when the stack goes; the others may destroy it. */
  readonly retainData: boolean;
  /** The service's public base URL (`-c baseUrl=`); the HTTP API's own URL when absent. */
  readonly baseUrl?: string;
  /** Realtime tokens' `aud` (`-c realtimeAudience=`, default `realtime`). */
  readonly realtimeAudience: string;
  /** Realtime tokens' lifetime (`-c realtimeTokenSeconds=`, default 3600). */
  readonly realtimeTokenSeconds: number;
}

export const STAGE_NAMES: readonly StageName[] = ['production', 'development', 'local'];

/** The CloudFormation stack of a stage; the operator CLI finds the stage's data through it. */
export const stackName = (stage: StageName): string => `FileService-${stage}`;

export function stageConfig(context: (key: string) => unknown): StageConfig {
  const name = (context('stage') ?? 'production') as StageName;
  if (!STAGE_NAMES.includes(name)) {
    throw new Error(`-c stage must be one of ${STAGE_NAMES.join(', ')}; got "${name}"`);
  }
  const text = (key: string): string | undefined => {
    const value = context(key);
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  const jwtIssuer = text('jwtIssuer') ?? (name === 'local' ? LOCAL_ISSUER : undefined);
  if (jwtIssuer === undefined) {
    throw new Error(
      `The ${name} stage needs -c jwtIssuer=https://… : the issuer whose tokens API Gateway accepts`,
    );
  }
  const realtimeTokenSeconds = Number(text('realtimeTokenSeconds') ?? 3600);
  if (
    !Number.isInteger(realtimeTokenSeconds) ||
    realtimeTokenSeconds < 1 ||
    realtimeTokenSeconds > 86_400
  ) {
    throw new Error('-c realtimeTokenSeconds must be whole seconds from 1 to 86400');
  }
  return {
    name,
    jwtIssuer,
    jwtAudiences: (text('jwtAudience') ?? LOCAL_AUDIENCE).split(','),
    userIdClaim: text('userIdClaim') ?? 'sub',
    logLevel: name === 'production' ? 'INFO' : 'DEBUG',
    retainData: name === 'production',
    ...(text('baseUrl') === undefined ? {} : { baseUrl: text('baseUrl') }),
    realtimeAudience: text('realtimeAudience') ?? 'realtime',
    realtimeTokenSeconds,
  };
}
