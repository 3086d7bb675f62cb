import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { Router } from 'express';

/** The production bundle carries Swagger UI's files beside it; in development they come from node_modules. */
function swaggerUiDir(): string {
  const beside = path.join(__dirname, 'swagger-ui');
  return existsSync(beside) ? beside : path.dirname(require.resolve('swagger-ui-dist/package.json'));
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>worktrack API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <link rel="icon" href="/docs/assets/favicon-32x32.png">
</head>
<body>
  <main id="reference" aria-label="API reference"></main>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>`;

// validatorUrl null: Swagger UI would otherwise send the document to an outside validator.
const INIT = `window.ui = SwaggerUIBundle({ url: '/v1/openapi.json', dom_id: '#reference', validatorUrl: null, deepLinking: true, tryItOutEnabled: false });`;

/** `GET /docs`: a browsable reference of `/v1/openapi.json`, from assets installed with the service; nothing loads from outside it. */
export function docsPage(): Router {
  const router = Router();
  router.get('/docs', (_req, res) => {
    res.type('html').send(PAGE);
  });
  router.get('/docs/init.js', (_req, res) => {
    res.type('js').send(INIT);
  });
  router.use('/docs/assets', express.static(swaggerUiDir(), { index: false, maxAge: '1d' }));
  return router;
}
