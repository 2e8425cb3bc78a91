import { Duration } from 'aws-cdk-lib';
import { CorsHttpMethod, type CorsPreflightOptions } from 'aws-cdk-lib/aws-apigatewayv2';
import { type CorsRule as BucketCorsRule, HttpMethods } from 'aws-cdk-lib/aws-s3';
import type { StageConfig } from '../stages.ts';
import { apiCorsRule, bucketCorsRules } from './cors-rules.ts';

/**
 * The HTTP API's `corsPreflight` for the stage's allowed origins; undefined when it has none,
 * so the API has no CorsConfiguration. API Gateway then answers preflights with the
 * configured headers and adds them to every answer, ignoring any an integration sends
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-cors.html).
 */
export function apiCorsPreflight(stage: StageConfig): CorsPreflightOptions | undefined {
  const rule = apiCorsRule(stage.allowedOrigins);
  if (rule === undefined) return undefined;
  return {
    allowOrigins: [...rule.allowOrigins],
    allowMethods: rule.allowMethods.map(
      (method) => CorsHttpMethod[method as keyof typeof CorsHttpMethod],
    ),
    allowHeaders: [...rule.allowHeaders],
    exposeHeaders: [...rule.exposeHeaders],
    maxAge: Duration.seconds(rule.maxAgeSeconds),
    allowCredentials: false,
  };
}

/** The bucket's CORS rules for the stage's allowed origins; undefined (no CORS) for none. */
export function bucketCors(stage: StageConfig): BucketCorsRule[] | undefined {
  const rules = bucketCorsRules(stage.allowedOrigins);
  if (rules.length === 0) return undefined;
  return rules.map((rule) => ({
    allowedOrigins: [...rule.allowOrigins],
    allowedMethods: rule.allowMethods.map(
      (method) => HttpMethods[method as keyof typeof HttpMethods],
    ),
    ...(rule.allowHeaders.length === 0 ? {} : { allowedHeaders: [...rule.allowHeaders] }),
    exposedHeaders: [...rule.exposeHeaders],
    maxAge: rule.maxAgeSeconds,
  }));
}
