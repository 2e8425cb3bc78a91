/**
 * Every environment variable `npm start` reads, for its `--help` and for the docs' tables
 * (a test holds README.md and docs/local-stage.md to this list).
 */
export interface LocalStageVariable {
  readonly name: string;
  readonly default: string;
  readonly meaning: string;
}

export const LOCAL_STAGE_VARIABLES: readonly LocalStageVariable[] = [
  { name: 'PORT', default: '8000', meaning: 'The HTTP port' },
  {
    name: 'HOST',
    default: '127.0.0.1',
    meaning:
      'The address the gateway and object store bind; 0.0.0.0 exposes them on the network (DynamoDB Local and the Invoke API stay on loopback)',
  },
  {
    name: 'PUBLIC_HOST',
    default: 'the first network IPv4 address',
    meaning:
      'With HOST=0.0.0.0: the name other machines reach this one by, in the stage URL, upload forms and download links',
  },
  {
    name: 'LOCAL_DATA_DIR',
    default: '.data/',
    meaning: 'Tables, objects and keys; they survive restarts. One stage per folder',
  },
  {
    name: 'LOCAL_STAGE_HOME',
    default: '.data/',
    meaning: 'Stands for .data/: the default folder, and where the CLIs find running stages',
  },
  {
    name: 'POWERTOOLS_LOG_LEVEL',
    default: 'WARN',
    meaning:
      'Handler log level: DEBUG, INFO, WARN, ERROR, SILENT (LOG_LEVEL also works); every request still gets its line',
  },
  {
    name: 'POWERTOOLS_METRICS_DISABLED',
    default: 'true',
    meaning: "false prints the handlers' metrics to the console, as CloudWatch EMF lines",
  },
  { name: 'USER_ID_CLAIM', default: 'sub', meaning: 'The JWT claim that holds the user id' },
  { name: 'REALTIME_AUDIENCE', default: 'realtime', meaning: 'The aud of realtime tokens' },
  {
    name: 'REALTIME_TOKEN_SECONDS',
    default: '3600',
    meaning: 'Realtime token lifetime, 1 to 86,400 seconds',
  },
  {
    name: 'CHAT_WEBHOOK_URL',
    default: 'none',
    meaning: 'A Slack incoming webhook; without one, messages go to the console and chat.jsonl',
  },
  {
    name: 'CHAT_RETRY_BASE_SECONDS',
    default: '1',
    meaning: 'The longest wait after a failed post; it doubles after each (30 on AWS)',
  },
  {
    name: 'CHAT_TIMEOUT_SECONDS',
    default: '10',
    meaning: 'How long a post to the webhook waits for an answer',
  },
  {
    name: 'CHAT_POSTS_PER_SECOND',
    default: '1',
    meaning: "The channel's pace: posts a second, over every worker (Slack takes 1)",
  },
  {
    name: 'NOTIFY_BURST',
    default: '5',
    meaning: 'Notify calls a user may make at once; more get 429 with Retry-After',
  },
  {
    name: 'NOTIFY_RATE_PER_MINUTE',
    default: '1',
    meaning: 'Notify calls a minute a user gets back after the burst',
  },
];
