import * as z from 'zod';
import {
  describeVariable,
  ENVIRONMENT,
  LOCAL_VARIABLES,
  type LocalVariable,
} from '#shared/config/environment.ts';
import { ALLOWED_ORIGINS_SETTING, STAGE_DEFAULTS } from '../../stages.ts';

/**
 * A variable `npm start` reads, for its `--help` and the docs' tables (npm run render); the
 * functions' own are described in shared/config/environment.ts. Meanings are Markdown.
 */
type LocalStageVariable = Readonly<Record<'name' | 'default' | 'meaning', string>>;

/** A variable the functions read, as the schema describes it, with its default. */
const functionVariable = (name: LocalVariable): LocalStageVariable => ({
  name,
  default: String(ENVIRONMENT[name].safeParse(undefined).data ?? 'none'),
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
      'With `HOST=0.0.0.0`: the name other machines (and this one) reach it by, in the stage URL, upload forms and download links',
  },
  {
    name: 'LOCAL_DATA_DIR',
    default: '.data/',
    meaning:
      'Tables, objects and keys; they survive restarts (delete the folder to start afresh). One stage per folder',
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
  {
    name: 'CHAT_WEBHOOK_URL',
    default: 'none',
    meaning:
      'A Slack-compatible incoming webhook; without one, messages go to the console and `<data dir>/chat.jsonl`',
  },
  // Every variable the schema lets the local stage override (shared/config/environment.ts).
  ...LOCAL_VARIABLES.map(functionVariable),
  {
    name: 'LOCAL_SCAN_DELAY_MS',
    default: '0',
    meaning:
      'How long the local malware scanner waits before each verdict, in ms up to 600,000: downloads stay pending that long',
  },
];

type Overridable = Pick<typeof ENVIRONMENT, LocalVariable>;

/** What the local stage reads from its environment: the functions' variables, and its own. */
export const LOCAL_OVERRIDES = z.object({
  ...(Object.fromEntries(LOCAL_VARIABLES.map((name) => [name, ENVIRONMENT[name]])) as Overridable),
  CHAT_WEBHOOK_URL: z.url().optional(),
  ALLOWED_ORIGINS: ALLOWED_ORIGINS_SETTING.default([...STAGE_DEFAULTS.local.allowedOrigins]),
  LOCAL_SCAN_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(0),
});

export type LocalOverrides = z.infer<typeof LOCAL_OVERRIDES>;

/** The local stage's settings, read from `env` by LOCAL_OVERRIDES (blank values are unset). */
export function localOverrides(env: Readonly<Record<string, string | undefined>>): LocalOverrides {
  const blank = (value: string | undefined) => (value?.trim() === '' ? undefined : value);
  const parsed = LOCAL_OVERRIDES.safeParse(
    Object.fromEntries(Object.keys(LOCAL_OVERRIDES.shape).map((k) => [k, blank(env[k])])),
  );
  if (parsed.success) return parsed.data;
  throw new Error(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
}
