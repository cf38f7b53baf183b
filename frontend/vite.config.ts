import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { precompress } from './scripts/precompress.ts';
import { prerenderLanding } from './scripts/prerender-landing.ts';

const backend = 'http://localhost:3000';

// The shared domain package is bundled from its TypeScript source (its dist is CommonJS, for the backend).
const alias = { '@joy/domain': fileURLToPath(new URL('../packages/domain/src/index.ts', import.meta.url)) };
const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  // The landing page and the public pages are prerendered into dist/landing.html, help.html, privacy.html and
  // terms.html (scripts/prerender-landing.ts), then every text file
  // of the build gets its brotli and gzip twins.
  plugins: [react(), precompress({ first: (outDir) => prerenderLanding({ root, outDir, alias }) })],
  resolve: { alias },
  server: {
    proxy: {
      '/api': { target: backend, changeOrigin: false },
      '/oidc': { target: backend, changeOrigin: false },
    },
  },
  preview: {
    proxy: {
      '/api': { target: backend, changeOrigin: false },
      '/oidc': { target: backend, changeOrigin: false },
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    rolldownOptions: {
      output: {
        // ECharts and its renderer zrender in chunks of their own, loaded by the chart pages only: left to the
        // default chunking they merged with shared page code into one chunk over 500 kB (together still 530 kB).
        // zrender is matched first (priority), else the echarts group takes it along.
        codeSplitting: {
          groups: [
            { name: 'zrender', test: /[\\/]node_modules[\\/]zrender[\\/]/, priority: 2 },
            { name: 'echarts', test: /[\\/]node_modules[\\/]echarts[\\/]/, priority: 1 },
          ],
        },
      },
    },
  },
});
