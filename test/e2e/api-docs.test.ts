import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { DOCS_CONTENT_SECURITY_POLICY } from '#shared/docs/docs-page.ts';
import { SWAGGER_UI_ASSETS } from '#shared/docs/swagger-ui-assets.ts';
import { API_ROUTES } from '#functions/service-functions.ts';
import { buildOpenApiDocument } from '#shared/openapi/openapi-document.ts';
import { requestSettingDefaults } from '#shared/config/environment.ts';
import { useTestStage } from '#test/support/test-stage.ts';
import { NOT_FOUND } from '#test/support/fastapi-bodies.ts';

const stage = useTestStage();
const packageFile = (file: string) =>
  readFile(createRequire(import.meta.url).resolve(`swagger-ui-dist/${file}`));

describe('GET /openapi.json', () => {
  it('serves the document, without a token, whatever Authorization says', async () => {
    const stored = await stage().stored();
    for (const headers of [{}, { authorization: 'Bearer not-a-token' }]) {
      const response = await stage().request('/openapi.json', { headers });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(response.headers.get('cache-control')).toBe('public, max-age=300');
      expect(await response.json()).toEqual(
        JSON.parse(JSON.stringify(buildOpenApiDocument(API_ROUTES, requestSettingDefaults()))),
      );
    }
    expect(await stage().stored()).toEqual(stored);
  });
});

describe('GET /docs', () => {
  it('serves the page with a strict CSP, loading only our own files', async () => {
    const response = await stage().request('/docs');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toBe(DOCS_CONTENT_SECURITY_POLICY);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await response.text();
    expect([...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1])).toEqual([
      'docs/favicon-32x32.png',
      'docs/swagger-ui.css',
      'docs/swagger-ui-bundle.js',
      'docs/swagger-initializer.js',
    ]);
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/<script>/);
  });

  it('serves each asset byte for byte from swagger-ui-dist, gzipped when asked and smaller', async () => {
    for (const [name, { file, contentType }] of Object.entries(SWAGGER_UI_ASSETS)) {
      const expected = await packageFile(file);
      const plain = await stage().request(`/docs/${name}`, {
        headers: { 'accept-encoding': 'identity' },
      });
      expect(plain.status).toBe(200);
      expect(plain.headers.get('content-type')).toBe(contentType);
      expect(plain.headers.get('content-encoding')).toBeNull();
      expect(plain.headers.get('content-length')).toBe(String(expected.length));
      expect(Buffer.from(await plain.arrayBuffer()).equals(expected)).toBe(true);
      // fetch decodes the gzip; the length on the wire is the compressed one.
      const zipped = await stage().request(`/docs/${name}`, {
        headers: { 'accept-encoding': 'gzip' },
      });
      expect(zipped.headers.get('vary')).toBe('accept-encoding');
      if (contentType.startsWith('image/')) {
        // gzip would make the icon larger, so it goes as it is.
        expect(zipped.headers.get('content-encoding')).toBeNull();
      } else {
        expect(zipped.headers.get('content-encoding')).toBe('gzip');
        expect(Number(zipped.headers.get('content-length'))).toBeLessThan(expected.length / 3);
      }
      expect(Buffer.from(await zipped.arrayBuffer()).equals(expected)).toBe(true);
    }
  });

  it('revalidates: a matching If-None-Match gets 304, each representation its own tag', async () => {
    const plain = await stage().request('/docs/swagger-ui.css', {
      headers: { 'accept-encoding': 'identity' },
    });
    const zipped = await stage().request('/docs/swagger-ui.css', {
      headers: { 'accept-encoding': 'gzip' },
    });
    const etag = plain.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[\w-]{22}"$/);
    expect(zipped.headers.get('etag')).toBe(etag.replace(/"$/, '-gzip"'));
    expect(plain.headers.get('cache-control')).toBe('no-cache');
    const again = await stage().request('/docs/swagger-ui.css', {
      headers: { 'accept-encoding': 'identity', 'if-none-match': `W/${etag}` },
    });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect(await again.text()).toBe('');
    // The plain tag does not stand for the gzip bytes.
    const other = await stage().request('/docs/swagger-ui.css', {
      headers: { 'accept-encoding': 'gzip', 'if-none-match': etag },
    });
    expect(other.status).toBe(200);
  });

  it('starts Swagger UI on the document beside the page', async () => {
    const response = await stage().request('/docs/swagger-initializer.js');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await response.text()).toContain("url: new URL('openapi.json', document.baseURI).href");
  });

  it('answers any other name with 404, and /docs/ with a redirect to /docs', async () => {
    for (const name of ['index.html', 'swagger-ui.js', '..%2Fpackage.json', 'package.json']) {
      const response = await stage().request(`/docs/${name}`);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual(NOT_FOUND);
    }
    const slash = await stage().request('/docs/', { redirect: 'manual' });
    expect(slash.status).toBe(307);
    expect(slash.headers.get('location')).toBe('/docs');
  });
});
