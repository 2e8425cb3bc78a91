import * as z from 'zod';
import {
  defaultOf,
  describeVariable,
  ENVIRONMENT,
  type EnvironmentName,
} from '#shared/config/environment.ts';

/**
 * Every environment variable `npm start` reads, for its `--help` and for the docs' tables
 * (test/e2e/cli-help.test.ts holds README.md and docs/local-stage.md to this list, and
 * test/unit/variable-descriptions.test.ts their descriptions to it). A variable the functions
 * read takes its description and default from shared/config/environment.ts; the stage's own
 * are described here. Descriptions are Markdown; `--help` prints them without backticks.
 */
export interface LocalStageVariable {
  readonly name: string;
  readonly default: string;
  readonly meaning: string;
}

/** A variable the functions read, as the schema describes it; `locally` overrides its default. */
const functionVariable = (name: EnvironmentName, locally?: string): LocalStageVariable => ({
  name,
  default: locally ?? defaultOf(name) ?? 'none',
  meaning: describeVariable(name),
});

export const LOCAL_STAGE_VARIABLES: readonly LocalStageVariable[] = [
  {
    name: 'PORT',
    default: '8000',
    meaning: 'The HTTP port; a taken port is reported, and `npm start` exits with 1',
  },
  {
    name: 'HOST',
    default: '127.0.0.1',
    meaning:
      'The address the gateway and object store bind; `0.0.0.0` exposes them (DynamoDB Local and the Invoke API stay on loopback)',
  },
  {
    name: 'PUBLIC_HOST',
    default: 'the first network IPv4 address',
    meaning:
      'With `HOST=0.0.0.0`: the name other machines reach this one by, in the stage URL, upload forms and download links',
  },
  {
    name: 'LOCAL_DATA_DIR',
    default: '.data/',
    meaning:
      'Tables, objects and keys; they survive restarts (delete the folder to start afresh). One stage per folder',
  },
  {
    name: 'LOCAL_STAGE_HOME',
    default: '.data/',
    meaning:
      'Stands for `.data/`: the data folder when `LOCAL_DATA_DIR` is not set, and where the CLIs find running stages',
  },
  {
    name: 'POWERTOOLS_LOG_LEVEL',
    default: 'WARN',
    meaning:
      'Handler log level: `DEBUG`, `INFO`, `WARN`, `ERROR`, `SILENT` (`LOG_LEVEL` also works); every request still gets its line',
  },
  {
    name: 'POWERTOOLS_METRICS_DISABLED',
    default: 'true',
    meaning: "`false` prints the handlers' metrics to the console, as CloudWatch EMF lines",
  },
  {
    name: 'ALLOWED_ORIGINS',
    default: 'http://*',
    meaning:
      'Comma-separated origins whose pages may call the stage and its store (CORS): an origin, `*`, `http://*`, `https://*`; or none',
  },
  functionVariable('USER_ID_CLAIM'),
  functionVariable('REALTIME_AUDIENCE'),
  functionVariable('REALTIME_TOKEN_SECONDS'),
  {
    name: 'CHAT_WEBHOOK_URL',
    default: 'none',
    meaning:
      'A Slack-compatible incoming webhook; without one, messages go to the console and `<data dir>/chat.jsonl`',
  },
  // 1 s locally, so a failed post shows at once (30 deployed).
  functionVariable('CHAT_RETRY_BASE_SECONDS', '1'),
  functionVariable('CHAT_TIMEOUT_SECONDS'),
  functionVariable('CHAT_POSTS_PER_SECOND'),
  functionVariable('NOTIFY_BURST'),
  functionVariable('NOTIFY_RATE_PER_MINUTE'),
  functionVariable('MALWARE_SCANNING'),
  functionVariable('MAX_FILES_PER_USER'),
  functionVariable('MAX_BYTES_PER_USER'),
  {
    name: 'LOCAL_SCAN_DELAY_MS',
    default: '0',
    meaning:
      'How long the local malware scanner waits before each verdict, in ms up to 600,000: downloads stay pending that long',
  },
];

/** What the local stage reads from its own environment, with the deployed defaults. */
export const LOCAL_OVERRIDES = z.object({
  USER_ID_CLAIM: ENVIRONMENT.USER_ID_CLAIM,
  REALTIME_AUDIENCE: ENVIRONMENT.REALTIME_AUDIENCE,
  REALTIME_TOKEN_SECONDS: ENVIRONMENT.REALTIME_TOKEN_SECONDS,
  // Locally the first retry comes after a second, not 30, so a failed post shows at once.
  CHAT_RETRY_BASE_SECONDS: ENVIRONMENT.CHAT_RETRY_BASE_SECONDS.unwrap().default(1),
  CHAT_TIMEOUT_SECONDS: ENVIRONMENT.CHAT_TIMEOUT_SECONDS,
  CHAT_POSTS_PER_SECOND: ENVIRONMENT.CHAT_POSTS_PER_SECOND,
  CHAT_WEBHOOK_URL: z.url().optional(),
  NOTIFY_BURST: ENVIRONMENT.NOTIFY_BURST,
  NOTIFY_RATE_PER_MINUTE: ENVIRONMENT.NOTIFY_RATE_PER_MINUTE,
  MALWARE_SCANNING: ENVIRONMENT.MALWARE_SCANNING,
  MAX_FILES_PER_USER: ENVIRONMENT.MAX_FILES_PER_USER,
  MAX_BYTES_PER_USER: ENVIRONMENT.MAX_BYTES_PER_USER,
});

/** LOCAL_SCAN_DELAY_MS, the stage's own: its scanner's wait (local-malware-scanner.ts). */
export const LOCAL_SCAN_DELAY_MS = z.coerce.number().int().min(0).max(600_000).default(0);
