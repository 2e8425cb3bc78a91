import type { CorsRule } from '../../stacks/cors-rules.ts';

/*
 * The bucket's CORS rules as s3rver keeps them: the XML of PutBucketCors, read back through
 * GetBucketCors. Its values are origins, methods, header names and a number, where `&amp;`
 * is the only escape that can appear.
 */

/** The values of one element of a CORSRule, in order. */
const elements = (xml: string, name: string) =>
  [...xml.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, 'g'))].map((found) =>
    (found[1] ?? '').replaceAll('&amp;', '&').trim(),
  );

/** The rules of a GetBucketCors answer (`<CORSConfiguration>`); none for no configuration. */
export function parseCorsConfiguration(xml: string): CorsRule[] {
  return [...xml.matchAll(/<CORSRule>([\s\S]*?)<\/CORSRule>/g)].map(([, rule = '']) => ({
    allowOrigins: elements(rule, 'AllowedOrigin'),
    allowMethods: elements(rule, 'AllowedMethod'),
    allowHeaders: elements(rule, 'AllowedHeader'),
    exposeHeaders: elements(rule, 'ExposeHeader'),
    maxAgeSeconds: Number(elements(rule, 'MaxAgeSeconds')[0] ?? 0),
  }));
}
