import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The service under `npm run dev`: the API calls of the dev server go there (same origin for the browser, so the
// session cookie and the CSRF header work as in production).
const target = process.env.SVC_URL ?? 'http://127.0.0.1:8080';

export default defineConfig({
  base: '/console/',
  // The SDK from its sources (the workspace sdk/): no build of it needed first, and its tree shakes with the console.
  resolve: { alias: { '@svc-platform/client': fileURLToPath(new URL('../sdk/src/index.ts', import.meta.url)) } },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    manifest: true,
    target: 'es2022',
    // One small entry for the login route; pages and the JSON editor are chunks of their own, loaded when opened.
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
  server: {
    proxy: {
      '/cxf': { target, changeOrigin: false },
      '/health': { target },
    },
  },
});
