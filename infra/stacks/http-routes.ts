import { Validations } from 'aws-cdk-lib';
import {
  type HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  type IHttpRouteAuthorizer,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { ApiRoute } from '#shared/api/routes.ts';

export interface HttpRoutesProps {
  readonly api: HttpApi;
  /** On every route whose `auth` is `jwt`. */
  readonly authorizer: IHttpRouteAuthorizer;
  /** Every route, with the id of the function that serves it. */
  readonly routes: readonly ApiRoute[];
  /** The functions, by function id. */
  readonly functions: ReadonlyMap<string, IFunction>;
}

/**
 * Every route on its function: a construct per function (its id), holding one integration
 * however many routes the function serves, and each route (its `routeName`, else its method)
 * with its own invoke permission.
 */
export class HttpRoutes extends Construct {
  constructor(scope: Construct, id: string, props: HttpRoutesProps) {
    super(scope, id);
    const served = Map.groupBy(props.routes, (route) => route.functionId);
    for (const [functionId, routes] of served) {
      const fn = props.functions.get(functionId);
      if (fn === undefined) throw new Error(`No function ${functionId} for its routes`);
      const scope = new Construct(this, functionId);
      const integration = new HttpLambdaIntegration('Integration', fn);
      for (const route of routes) {
        const httpRoute = new HttpRoute(scope, route.routeName ?? route.method, {
          httpApi: props.api,
          routeKey: HttpRouteKey.with(route.path, HttpMethod[route.method]),
          integration,
          ...(route.auth === 'jwt' ? { authorizer: props.authorizer } : {}),
        });
        if (route.auth === 'none') {
          Validations.of(httpRoute).acknowledge({
            id: 'AwsSolutions-APIG4',
            reason: `${route.method} ${route.path} is public by design: ${route.publicBecause ?? ''}`,
          });
        }
      }
    }
  }
}
