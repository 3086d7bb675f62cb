import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import express, { type Router } from 'express';

/** The production bundle carries the files beside it (scripts/build.mjs); in development they sit beside this module. */
function assetsDir(): string {
  const beside = path.join(__dirname, 'dashboard-assets');
  return existsSync(beside) ? beside : path.join(__dirname, 'assets');
}

export interface AssetUrls {
  css: string;
  js: string;
  icon: string;
}

/**
 * Serves the stylesheet, the script and the icon, the only assets, from this service: URLs carry a hash of
 * the content, so browsers keep them for a year and a deploy changes the URL.
 */
export function dashboardAssets(): { router: Router; urls: AssetUrls } {
  const dir = assetsDir();
  const versioned = (file: string) =>
    `/dashboard/assets/${file}?v=${createHash('sha256')
      .update(readFileSync(path.join(dir, file)))
      .digest('hex')
      .slice(0, 12)}`;
  const router = express.Router();
  router.use('/assets', express.static(dir, { immutable: true, maxAge: '365d', index: false }));
  return { router, urls: { css: versioned('dashboard.css'), js: versioned('dashboard.js'), icon: versioned('favicon.svg') } };
}
