import { describe, expect, it } from 'vitest';
import { STAGE_DEFAULTS, stageConfig } from '#infra/stages.ts';

const ISSUER = 'https://issuer.example/';

// The synthesized CorsConfiguration of each stage: test/infra/service-stacks.test.ts, which
// synthesizes every stage once.
describe('the allowedOrigins setting', () => {
  it('defaults: production none; development and local any http:// page (a dev server on any port)', () => {
    expect(STAGE_DEFAULTS.production.allowedOrigins).toEqual([]);
    expect(STAGE_DEFAULTS.development.allowedOrigins).toEqual(['http://*']);
    expect(STAGE_DEFAULTS.local.allowedOrigins).toEqual(['http://*']);
  });

  const config = (values: Record<string, unknown>) => () =>
    stageConfig((key) => ({ stage: 'development', jwtIssuer: ISSUER, ...values })[key]);

  it('takes origins, *, http://* and https://*, from the command line or cdk.json', () => {
    expect(
      config({ allowedOrigins: 'https://app.example.com, http://[::1]:8080' })().allowedOrigins,
    ).toEqual(['https://app.example.com', 'http://[::1]:8080']);
    expect(config({ allowedOrigins: '*' })().allowedOrigins).toEqual(['*']);
    expect(
      config({ stages: { development: { allowedOrigins: ['https://*', 'http://*'] } } })()
        .allowedOrigins,
    ).toEqual(['https://*', 'http://*']);
    // None: `-c allowedOrigins=` or an empty list (production's default: no CORS at all).
    expect(config({ allowedOrigins: '' })().allowedOrigins).toEqual([]);
    expect(config({ stages: { development: { allowedOrigins: [] } } })().allowedOrigins).toEqual(
      [],
    );
  });

  it('refuses what API Gateway or S3 would not take, and the old uploadOrigins', () => {
    const because =
      'entries must be an origin (https://app.example.com), *, http://* or https://*: API Gateway takes no other wildcard';
    for (const wrong of [
      'http://localhost:*',
      'https://*.example.com',
      'app.example.com',
      'https://app.example.com/',
    ]) {
      expect(config({ allowedOrigins: wrong })).toThrow(
        `Stage development: allowedOrigins ${because} (got ${JSON.stringify(wrong)})`,
      );
    }
    const renamed =
      'Stage development: uploadOrigins is now allowedOrigins, one list for the API and the bucket (context.stages.development.allowedOrigins in cdk.json, or -c allowedOrigins=…)';
    expect(config({ uploadOrigins: 'https://app.example.com' })).toThrow(renamed);
    expect(config({ stages: { development: { uploadOrigins: ['*'] } } })).toThrow(renamed);
  });
});
