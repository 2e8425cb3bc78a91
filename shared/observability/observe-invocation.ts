import type { MiddlewareObj, Request } from '@middy/core';
import { metrics } from './metrics.ts';
import { tracer } from './tracer.ts';

type Segment = NonNullable<ReturnType<typeof tracer.getSegment>>;

/** The invocation's segment, and the handler's subsegment opened in it. */
const openSegments = new WeakMap<object, { invocation: Segment; handler: Segment }>();

/** The status of an HTTP answer; event functions have none. */
function statusOf(response: unknown): number | undefined {
  if (typeof response !== 'object' || response === null || !('statusCode' in response)) {
    return undefined;
  }
  return typeof response.statusCode === 'number' ? response.statusCode : undefined;
}

function openHandlerSegment(request: Request): void {
  if (!tracer.isTracingEnabled()) return;
  const invocation = tracer.getSegment();
  if (invocation === undefined) return;
  const handler = invocation.addNewSubsegment('## handler');
  openSegments.set(request, { invocation, handler });
  tracer.setSegment(handler);
  tracer.annotateColdStart();
  tracer.addServiceNameAnnotation();
}

/**
 * Closes the handler's subsegment. X-Ray tells a client's error (4xx: the `error` flag) from
 * our fault (5xx, or an event function that threw: `fault`, with the error). Powertools'
 * own middleware marks every thrown error a fault, refusals included, since it cannot see
 * the response the error handler made of it.
 */
function closeHandlerSegment(request: Request, thrown: boolean): void {
  const open = openSegments.get(request);
  if (open === undefined) return;
  openSegments.delete(request);
  const status = statusOf(request.response);
  if (thrown && (status === undefined || status >= 500))
    tracer.addErrorAsMetadata(request.error as Error);
  else if (status !== undefined && status >= 500) open.handler.addFaultFlag();
  else if (status !== undefined && status >= 400) open.handler.addErrorFlag();
  open.handler.close();
  tracer.setSegment(open.invocation);
}

/** The buffered metrics, when there are any (Powertools' middleware warns when there are none). */
function flushMetrics(): void {
  if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
}

/**
 * What every function's invocation gets, registered right after the logger: a traced
 * handler subsegment, the cold-start metric, and a flush of the invocation's metrics. Its
 * `after` and `onError` run after every later middleware's (middy unwinds in reverse), so
 * the annotations and metrics those add are in.
 */
export function observeInvocation(): MiddlewareObj<unknown, unknown> {
  return {
    name: 'observeInvocation',
    before: (request) => {
      openHandlerSegment(request);
      metrics.captureColdStartMetric(request.context.functionName);
    },
    after: (request) => {
      flushMetrics();
      closeHandlerSegment(request, false);
    },
    onError: (request) => {
      flushMetrics();
      closeHandlerSegment(request, true);
    },
  };
}
