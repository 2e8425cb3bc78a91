import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/**
 * A route's handler for tests of the local gateway itself: it answers 200 after `?ms=`
 * milliseconds, with no middy in front to answer for it early, as a function that simply
 * runs too long. The service's own functions are tested through the service's routes.
 */
export const handler = async (
  event: APIGatewayProxyEventV2,
): Promise<APIGatewayProxyStructuredResultV2> => {
  const ms = Number(event.queryStringParameters?.ms ?? 0);
  await new Promise((resolve) => setTimeout(resolve, ms));
  return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: '{}' };
};
