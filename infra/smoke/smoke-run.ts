import { createHash } from 'node:crypto';
import type * as z from 'zod';
import type { StageName } from '#infra/stages.ts';

/** What the smoke check is told: the stage, the token, and which optional steps to take. */
export interface SmokeOptions {
  /** The stage's API URL (the ApiUrl output). */
  readonly url: string;
  /** A bearer token the stage's issuer signed, for a user the check may write files for. */
  readonly token: string;
  /** The stage's name: room ids start with it, and its stacks are named after it. */
  readonly stage: StageName;
  /**
   * A deal whose group the token's user is an editor of: its room's token is asked for too,
   * and (with `operatorEnv`) a deal file is copied to it and deleted again.
   */
  readonly deal?: { readonly groupId: number; readonly dealId: number };
  /**
   * Given, the steps that read the stage itself are taken, finding it as the operator CLI
   * does (`infra/admin/stage-target.ts`): a deployed stage by its stacks, with the process's
   * AWS credentials and region; the local stage by the data folder this environment names.
   * Absent (`--http-only`), those steps are left out.
   */
  readonly operatorEnv?: NodeJS.ProcessEnv;
  /** Send one real chat message for the files uploaded. */
  readonly notify: boolean;
  /**
   * Whether the stage scans stored files for malware (its malwareScanning setting): then a
   * file holding the EICAR test string is uploaded too, and its download must be refused.
   */
  readonly malwareScanning: boolean;
  /** Leave the EICAR file out though the stage scans: its ThreatsFound alarm stays quiet. */
  readonly skipEicar?: boolean;
  /**
   * How long a file's download may stay held (409) while its scan is under way.
   *
   * @default 5 minutes
   */
  readonly scanWaitMs?: number;
  /**
   * The longest wait before a held download is asked again: its Retry-After, at most this.
   *
   * @default 10 s
   */
  readonly retryAfterMaxMs?: number;
  /**
   * The stage's `ThreatsFound` data points since a time (CloudWatch, with the operator's AWS
   * credentials): given, the check also proves the infected file was counted, which is what
   * the alarm watches.
   */
  readonly threatsCountedSince?: (since: Date) => Promise<number>;
  /**
   * How long the count may take to show: metrics reach CloudWatch minutes after the verdict.
   *
   * @default 5 minutes
   */
  readonly metricsWaitMs?: number;
  /**
   * The size of the direct upload.
   *
   * @default 3 MiB
   */
  readonly directUploadBytes?: number;
  /**
   * How long one request may take.
   *
   * @default 15 s
   */
  readonly requestTimeoutMs?: number;
}

type StepStatus = 'ok' | 'failed' | 'skipped';

export interface StepResult {
  readonly step: string;
  readonly status: StepStatus;
  readonly ms: number;
  /** What was seen, for a failed or skipped step; a short note for a passed one. */
  readonly detail: string;
}

/** A step's failure, in words an operator can act on. */
export class CheckFailed extends Error {}

/** A step this stage cannot answer (the local stage has no GuardDuty, say), and why. */
export class StepSkipped extends Error {}

/** A deal file the check made, by its deal and id. */
interface DealFileMade {
  readonly groupId: number;
  readonly dealId: number;
  readonly id: number;
}

/** A file the check uploaded and the bytes it sent. */
export interface SentFile {
  readonly id: number;
  readonly bytes: Buffer;
}

/** What every step of one smoke run shares: its options, its HTTP calls, its results. */
export interface SmokeRun {
  readonly options: SmokeOptions;
  /** The API URL without a trailing slash. */
  readonly base: string;
  readonly timeoutMs: number;
  readonly auth: { readonly authorization: string };
  /** The steps' results, in the order they ran. */
  readonly results: StepResult[];
  /** The ids of the files made and not yet deleted: the clean up deletes them. */
  readonly created: number[];
  /** The deal files made and not yet deleted: the clean up deletes them too. */
  readonly createdDealFiles: DealFileMade[];
  /** A request to the stage (a path under its URL, or a whole URL), never following redirects. */
  readonly call: (path: string, init?: RequestInit) => Promise<Response>;
  readonly expectStatus: (response: Response, status: number, what: string) => Promise<void>;
  readonly json: <T>(response: Response, schema: z.ZodType<T>, what: string) => Promise<T>;
  /**
   * Runs one step and records its result, timed: skipped when a value it needs is missing
   * (an earlier step failed) or it threw StepSkipped, failed with the message of anything
   * else it threw.
   */
  readonly step: (
    name: string,
    run: () => Promise<string>,
    needs?: readonly unknown[],
  ) => Promise<void>;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const base64Sha256 = (bytes: Uint8Array) =>
  createHash('sha256').update(bytes).digest('base64');

/** A request whose failure to answer is a step's failure, naming what could not be reached. */
const caller =
  (base: string, timeoutMs: number) =>
  async (path: string, init: RequestInit = {}): Promise<Response> => {
    try {
      return await fetch(path.startsWith('http') ? path : `${base}${path}`, {
        redirect: 'manual',
        ...init,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
      throw new CheckFailed(
        `${init.method ?? 'GET'} ${path}: ${cause instanceof Error ? cause.message : String(cause)}`,
      );
    }
  };

const expectStatus = async (response: Response, status: number, what: string) => {
  if (response.status === status) return;
  const body = (await response.text()).slice(0, 200);
  throw new CheckFailed(`${what}: ${String(response.status)} ${body} (expected ${String(status)})`);
};

const json = async <T>(response: Response, schema: z.ZodType<T>, what: string): Promise<T> => {
  const parsed = schema.safeParse(await response.json().catch(() => undefined));
  if (!parsed.success) throw new CheckFailed(`${what}: the body is not the documented shape`);
  return parsed.data;
};

const stepper =
  (results: StepResult[]): SmokeRun['step'] =>
  async (name, run, needs = []) => {
    if (needs.some((value) => value === undefined)) {
      results.push({ step: name, status: 'skipped', ms: 0, detail: 'an earlier step failed' });
      return;
    }
    const started = performance.now();
    try {
      const detail = await run();
      results.push({ step: name, status: 'ok', ms: performance.now() - started, detail });
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      const status = error instanceof StepSkipped ? 'skipped' : 'failed';
      results.push({ step: name, status, ms: performance.now() - started, detail });
    }
  };

/** A new run of the check against the stage the options name: no step taken yet. */
export function startRun(options: SmokeOptions): SmokeRun {
  const base = options.url.replace(/\/+$/, '');
  const timeoutMs = options.requestTimeoutMs ?? 15_000;
  const results: StepResult[] = [];
  return {
    options,
    base,
    timeoutMs,
    auth: { authorization: `Bearer ${options.token}` },
    results,
    created: [],
    createdDealFiles: [],
    call: caller(base, timeoutMs),
    expectStatus,
    json,
    step: stepper(results),
  };
}

/**
 * A run that takes no step: each is recorded by its name alone, skipped and its body not run,
 * so that the check's own code says which steps a run with these options takes, in order.
 */
export function planRun(options: SmokeOptions): SmokeRun {
  const run = startRun(options);
  return {
    ...run,
    step: (name) => {
      run.results.push({ step: name, status: 'skipped', ms: 0, detail: 'planned' });
      return Promise.resolve();
    },
  };
}
