/**
 * Whether an `Accept-Encoding` header takes gzip (RFC 9110 §12.5.3): named, or through `*`,
 * with a quality above zero.
 */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (acceptEncoding === undefined) return false;
  const weights = new Map<string, number>();
  for (const entry of acceptEncoding.split(',')) {
    const [coding = '', ...params] = entry.split(';').map((part) => part.trim().toLowerCase());
    const quality = params.find((param) => param.startsWith('q='));
    const weight = quality === undefined ? 1 : Number(quality.slice(2));
    if (coding !== '') weights.set(coding, Number.isNaN(weight) ? 0 : weight);
  }
  return (weights.get('gzip') ?? weights.get('*') ?? 0) > 0;
}

/** Whether `If-None-Match` names this entity tag (weak comparison, RFC 9110 §13.1.2). */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const strip = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || strip(tag) === strip(etag));
}
