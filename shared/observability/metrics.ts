import { Metrics } from '@aws-lambda-powertools/metrics';
import { BUSINESS_METRICS, type BusinessMetric, SERVICE_NAME } from './business-metrics.ts';

/**
 * One metrics buffer per container, flushed as CloudWatch EMF lines on stdout after each
 * invocation (`emitMetrics`). The namespace comes from POWERTOOLS_METRICS_NAMESPACE, which
 * the stack sets per stage; POWERTOOLS_METRICS_DISABLED=true turns emission off.
 */
export const metrics = new Metrics({ serviceName: SERVICE_NAME });

/** Adds one data point of a business metric to this invocation's flush. */
export function recordMetric(name: Exclude<BusinessMetric, 'Refusals'>, value = 1): void {
  metrics.addMetric(name, BUSINESS_METRICS[name].unit, value);
}

/**
 * A response of status 400 or more. Its `statusClass` dimension must not reach the other
 * metrics of the invocation, so it goes out on a line of its own.
 */
export function recordRefusal(status: number): void {
  metrics
    .singleMetric()
    .addDimension('statusClass', status >= 500 ? '5xx' : '4xx')
    .addMetric('Refusals', BUSINESS_METRICS.Refusals.unit, 1);
}

/** A refused access's entries the access trail did not take: their caller's slots were full. */
export function refusalNotRecorded(entries: number): void {
  recordMetric('RefusalsNotRecorded', entries);
}
