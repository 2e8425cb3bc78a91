/**
 * Per-stage settings, chosen with `-c stage=production|development|local` (production by
 * default). The identity provider's issuer and audience come from context
 * (`-c jwtIssuer=... -c jwtAudience=...`) so no stage bakes in another's.
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
}

const STAGE_NAMES: readonly StageName[] = ['production', 'development', 'local'];

export function stageConfig(context: (key: string) => unknown): StageConfig {
  const name = (context('stage') ?? 'production') as StageName;
  if (!STAGE_NAMES.includes(name)) {
    throw new Error(`-c stage must be one of ${STAGE_NAMES.join(', ')}; got "${name}"`);
  }
  const text = (key: string, fallback: string) => {
    const value = context(key);
    return typeof value === 'string' && value !== '' ? value : fallback;
  };
  return {
    name,
    jwtIssuer: text('jwtIssuer', `https://auth.${name}.example.com/`),
    jwtAudiences: text('jwtAudience', 'file-service-api').split(','),
    userIdClaim: text('userIdClaim', 'sub'),
    logLevel: name === 'production' ? 'INFO' : 'DEBUG',
    retainData: name === 'production',
  };
}
