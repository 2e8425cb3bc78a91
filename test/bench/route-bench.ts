/**
 * Throughput and latency per route on the local stage (in a process of its own): 50 clients
 * for BENCH_LOAD_SECONDS (default 10) on each of list, token and a small upload, then all
 * three mixed, as the hardening suite's load runs them. Reported, not a target.
 */
import { type LoadRoute, runMixedLoad } from '#test/support/mixed-load.ts';

const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 10);
const CONNECTIONS = 50;

const RUNS: readonly { label: string; routes: readonly LoadRoute[] }[] = [
  { label: 'GET /api/v1/user/me/file', routes: ['list'] },
  { label: 'POST /api/v1/auth/get-realtime-token', routes: ['token'] },
  { label: 'POST /api/v1/user/me/file (27 bytes)', routes: ['upload'] },
  { label: 'mixed (list, token, upload in turn)', routes: ['list', 'token', 'upload'] },
];

export async function benchRoutes(options: {
  readonly url: string;
  readonly tokenOf: (connection: number) => string;
}): Promise<{ report: string }> {
  const lines: string[] = [];
  for (const { label, routes } of RUNS) {
    const { result } = await runMixedLoad({
      url: options.url,
      connections: CONNECTIONS,
      seconds: SECONDS,
      routes,
      tokenOf: options.tokenOf,
    });
    const failures = result.errors + result.timeouts + result.non2xx;
    lines.push(
      `  ${label.padEnd(40)} ${result.requests.average.toFixed(0).padStart(6)} req/s   p50 ${String(result.latency.p50).padStart(4)} ms   p99 ${String(result.latency.p99).padStart(4)} ms   ${failures === 0 ? 'no errors' : `${String(failures)} FAILED`}`,
    );
  }
  return {
    report: `Routes under load: ${String(CONNECTIONS)} clients, ${String(SECONDS)} s each, on the local stage\n${lines.join('\n')}\n`,
  };
}
