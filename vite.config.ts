/**
 * The WebXR client's build: client/ -> dist/client, served by the session server (`npm start`).
 * `npm run dev:client` serves it with hot reload and proxies /api to a server on :8787.
 */
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: 'client',
  base: '/',
  // The repository's public/ (the XR controller profiles) is copied into the build as is.
  publicDir: '../public',
  plugins: [react()],
  // One copy of three for the app, fiber, drei and xr.
  resolve: { dedupe: ['three', 'react', 'react-dom'] },
  build: {
    outDir: '../dist/client',
    emptyOutDir: true,
    chunkSizeWarningLimit: 2500,
    sourcemap: false,
    // Zod and client/src/no-eval.ts (jitless: the CSP has no 'unsafe-eval') in one chunk, in that
    // order: schemas built in shared chunks (shared/events.ts…) then find jitless set. When
    // no-eval.ts was inlined into the entry, it ran after those chunks and zod probed for eval.
    rolldownOptions: { output: { codeSplitting: { groups: [{ name: 'zod', test: /node_modules[\\/]zod[\\/]|client[\\/]src[\\/]no-eval\.ts$/, priority: 100 }] } } },
  },
  server: { proxy: { '/api': { target: 'http://localhost:8787', ws: true } } },
});
