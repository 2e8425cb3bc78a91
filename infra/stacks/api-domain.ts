import { CfnOutput, type Stack, Token } from 'aws-cdk-lib';
import {
  CfnApiMapping,
  DomainName,
  EndpointType,
  type IHttpApi,
  type IHttpStage,
  SecurityPolicy,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import type { Construct } from 'constructs';
import type { StageConfig } from '../stages.ts';

/** The data stack's outputs a DNS record for the custom domain names. */
const API_DOMAIN_OUTPUTS = {
  /** The regional hostname a CNAME (or a Route 53 alias) for apiDomainName points at. */
  target: 'ApiDomainTarget',
  /** Its hosted zone, for a Route 53 alias record. */
  hostedZoneId: 'ApiDomainHostedZoneId',
} as const;

/**
 * The API's custom domain (stage settings `apiDomainName` and `apiCertificateArn`), in the data
 * stack: the name and the regional target its DNS record points at then outlive the API
 * stack, so a client's `https://<apiDomainName>` keeps working when the API is destroyed and
 * made anew. The API stack maps its API onto it (`mapApiDomain`). Nothing without the settings.
 */
export function addApiDomain(stack: Stack, stage: StageConfig): void {
  const { apiDomainName, apiCertificateArn } = stage;
  if (apiDomainName === undefined || apiCertificateArn === undefined) return;
  // A regional endpoint serves with a certificate of its own region (ACM's are regional).
  const certificateRegion = apiCertificateArn.split(':')[3];
  if (!Token.isUnresolved(stack.region) && certificateRegion !== stack.region) {
    throw new Error(
      `Stage ${stage.name}: apiCertificateArn is a certificate of ${String(certificateRegion)}, and the stage deploys to ${stack.region}: a regional API's certificate must be in its region`,
    );
  }
  const domain = new DomainName(stack, 'ApiDomain', {
    domainName: apiDomainName,
    certificate: Certificate.fromCertificateArn(stack, 'ApiCertificate', apiCertificateArn),
    endpointType: EndpointType.REGIONAL,
    securityPolicy: SecurityPolicy.TLS_1_2,
  });
  new CfnOutput(stack, API_DOMAIN_OUTPUTS.target, {
    description: `Point ${apiDomainName} here: a CNAME, or a Route 53 alias in ${API_DOMAIN_OUTPUTS.hostedZoneId}`,
    value: domain.regionalDomainName,
  });
  new CfnOutput(stack, API_DOMAIN_OUTPUTS.hostedZoneId, { value: domain.regionalHostedZoneId });
}

/** Serves the API at the root of the stage's custom domain, when it has one. */
export function mapApiDomain(
  scope: Construct,
  stage: StageConfig,
  api: IHttpApi,
  apiStage: IHttpStage,
): void {
  if (stage.apiDomainName === undefined) return;
  const mapping = new CfnApiMapping(scope, 'ApiDomainMapping', {
    apiId: api.apiId,
    // By name: the data stack, deployed first, holds the domain.
    domainName: stage.apiDomainName,
    stage: apiStage.stageName,
  });
  mapping.node.addDependency(apiStage);
}

/** Realtime tokens' `iss` by default: the custom domain's URL, when the stage has one. */
export const apiDomainUrl = (stage: StageConfig): string | undefined =>
  stage.apiDomainName === undefined ? undefined : `https://${stage.apiDomainName}`;
