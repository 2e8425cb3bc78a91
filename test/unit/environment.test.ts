import { describe, expect, it } from 'vitest';
import { SERVICE_FUNCTIONS } from '#functions/service-functions.ts';
import { ConfigError, ENVIRONMENT, readEnvironment } from '#shared/config/environment.ts';

describe('the environment is read once, by name, against its rules', () => {
  it('applies defaults to unset and blank variables', () => {
    expect(
      readEnvironment(['USER_ID_CLAIM', 'REALTIME_TOKEN_SECONDS', 'CHAT_RETRY_BASE_SECONDS'], {
        USER_ID_CLAIM: '  ',
      }),
    ).toEqual({ USER_ID_CLAIM: 'sub', REALTIME_TOKEN_SECONDS: 3600, CHAT_RETRY_BASE_SECONDS: 30 });
  });

  it('parses what is set, numbers included', () => {
    expect(
      readEnvironment(['TABLE_NAME', 'REALTIME_TOKEN_SECONDS', 'CHAT_TIMEOUT_SECONDS'], {
        TABLE_NAME: 'files',
        REALTIME_TOKEN_SECONDS: '900',
        CHAT_TIMEOUT_SECONDS: '2.5',
        UNRELATED: 'ignored',
      }),
    ).toEqual({ TABLE_NAME: 'files', REALTIME_TOKEN_SECONDS: 900, CHAT_TIMEOUT_SECONDS: 2.5 });
  });

  it('reports every missing or broken variable at once', () => {
    const read = () =>
      readEnvironment(['TABLE_NAME', 'NOTIFY_QUEUE_URL', 'REALTIME_TOKEN_SECONDS', 'STAGE'], {
        NOTIFY_QUEUE_URL: 'not a url',
        REALTIME_TOKEN_SECONDS: '86401',
        STAGE: 'local',
      });
    expect(read).toThrow(ConfigError);
    expect(read).toThrow(
      /^Environment not usable: TABLE_NAME: .+ \| NOTIFY_QUEUE_URL: .+ \| REALTIME_TOKEN_SECONDS: .+$/,
    );
  });

  it('refuses a retry wait that is not a positive number of seconds', () => {
    expect(() =>
      readEnvironment(['CHAT_RETRY_BASE_SECONDS'], { CHAT_RETRY_BASE_SECONDS: 'fast' }),
    ).toThrow(/CHAT_RETRY_BASE_SECONDS/);
    expect(() => readEnvironment(['CHAT_TIMEOUT_SECONDS'], { CHAT_TIMEOUT_SECONDS: '-1' })).toThrow(
      /CHAT_TIMEOUT_SECONDS/,
    );
  });

  it('every function reads only variables the schema knows', () => {
    for (const { variables } of SERVICE_FUNCTIONS) {
      for (const name of variables) expect(Object.keys(ENVIRONMENT)).toContain(name);
    }
  });
});
