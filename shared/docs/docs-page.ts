/**
 * The /docs page: FastAPI's Swagger UI setup, with its scripts and styles served by us
 * (`/docs/<asset>`) instead of a CDN, and no inline script, so a strict CSP holds.
 */
export const DOCS_PAGE_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>File and collaboration-token service – API reference</title>
    <link rel="icon" type="image/png" href="docs/favicon-32x32.png" />
    <link rel="stylesheet" href="docs/swagger-ui.css" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="docs/swagger-ui-bundle.js"></script>
    <script src="docs/swagger-initializer.js"></script>
  </body>
</html>
`;

/**
 * FastAPI's Swagger UI parameters. The document's URL is relative to the page, so the page
 * works under any host; no validator badge, which would call out to swagger.io.
 */
export const SWAGGER_INITIALIZER_JS = `window.ui = SwaggerUIBundle({
  url: new URL('openapi.json', document.baseURI).href,
  dom_id: '#swagger-ui',
  layout: 'BaseLayout',
  deepLinking: true,
  showExtensions: true,
  showCommonExtensions: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
});
`;

/**
 * Only our own scripts and styles (Swagger UI sets inline styles), requests to this origin
 * only (so "Try it out" reaches this stage and nothing else), and no framing.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
