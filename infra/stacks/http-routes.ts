import { Validations } from 'aws-cdk-lib';
import {
  type HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  type IHttpRouteAuthorizer,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IDependable } from 'constructs';
import { Construct } from 'constructs';
import { API_ROUTES, type FunctionId } from '#shared/api/routes.ts';
import { FUNCTION_ENVIRONMENT } from '#shared/config/function-environment.ts';
import type { ServiceFunctions } from './service-functions.ts';

export interface HttpRoutesProps {
  readonly api: HttpApi;
  /** On every route whose `auth` is `jwt`. */
  readonly authorizer: IHttpRouteAuthorizer;
  readonly functions: ServiceFunctions;
  /** Functions that read the realtime keys wait for the first one to exist. */
  readonly realtimeKeysReady: IDependable;
}

/**
 * Every route of `API_ROUTES`, each on its function: one function per function id, however
 * many routes it serves (its integration reused, each route with its own permission).
 */
export class HttpRoutes extends Construct {
  constructor(scope: Construct, id: string, props: HttpRoutesProps) {
    super(scope, id);
    const integrations = new Map<FunctionId, HttpLambdaIntegration>();
    const integrationOf = (route: (typeof API_ROUTES)[number]) => {
      const made = integrations.get(route.functionId);
      if (made !== undefined) return made;
      const served = API_ROUTES.filter((r) => r.functionId === route.functionId);
      const fn = props.functions.make(this, route.functionId, {
        description: served.map((r) => `${r.method} ${r.path}`).join(', '),
        ...('bundledFiles' in route ? { bundledFiles: route.bundledFiles } : {}),
      });
      const environment: readonly string[] = FUNCTION_ENVIRONMENT[route.functionId];
      // No token, and no key published, before the first key exists.
      if (environment.includes('REALTIME_KEYS_SECRET_ARN')) {
        fn.node.addDependency(props.realtimeKeysReady);
      }
      const integration = new HttpLambdaIntegration(`${route.functionId}Integration`, fn);
      integrations.set(route.functionId, integration);
      return integration;
    };
    for (const route of API_ROUTES) {
      const httpRoute = new HttpRoute(
        this,
        `${route.functionId}${'routeName' in route ? route.routeName : ''}Route`,
        {
          httpApi: props.api,
          routeKey: HttpRouteKey.with(route.path, HttpMethod[route.method]),
          integration: integrationOf(route),
          ...(route.auth === 'jwt' ? { authorizer: props.authorizer } : {}),
        },
      );
      if (route.auth === 'none') {
        Validations.of(httpRoute).acknowledge({
          id: 'AwsSolutions-APIG4',
          reason: `${route.method} ${route.path} is public by design: ${route.publicBecause}`,
        });
      }
    }
  }
}
