import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

const backend = 'http://localhost:3000';

export default defineConfig({
  plugins: [react()],
  // The shared domain package is bundled from its TypeScript source (its dist is CommonJS, for the backend).
  resolve: { alias: { '@joy/domain': fileURLToPath(new URL('../packages/domain/src/index.ts', import.meta.url)) } },
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
  },
});
