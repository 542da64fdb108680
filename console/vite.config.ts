// The console's build: plain Vite (no framework plugin), JSX compiled for Preact by Vite's own transformer.
import { defineConfig } from 'vite';

export default defineConfig({
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', modulePreload: { polyfill: false } },
  server: { proxy: { '/api': 'http://127.0.0.1:7420', '/console/v1': 'http://127.0.0.1:7420' } },
});
