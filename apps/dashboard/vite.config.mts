import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));

/** Built into dist/dashboard (served by the api role under /app/). */
export default defineConfig({
  root: here,
  base: '/app/',
  publicDir: false,
  build: {
    outDir: fileURLToPath(new URL('../../dist/dashboard', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // CSP forbids inline script: keep the module preload polyfill out of index.html.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
});
