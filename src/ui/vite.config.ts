import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));
/** `npm run dev`: the dev server proxies API calls to a running Spyglass (SPYGLASS_URL, default :5560). */
const target = process.env.SPYGLASS_URL ?? 'http://127.0.0.1:5560';

export default defineConfig({
  root,
  base: '/',
  // The automatic JSX runtime via esbuild: no Babel in the build.
  esbuild: { jsx: 'automatic' },
  build: {
    outDir: fileURLToPath(new URL('../../dist/ui', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    chunkSizeWarningLimit: 1200,
    rollupOptions: {
      // Mantine marks its modules "use client" (for React Server Components); meaningless in a bundle.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
      output: {
        // Libraries every page uses in one long-cached chunk; page code and CodeMirror load per route.
        // Mantine is not forced into one chunk: its components go with the pages that use them (a
        // manual chunk would also take in everything reachable through its barrel), so the
        // settings' tables, modals and accordions do not weigh on the sign-in page.
        manualChunks(id) {
          if (/node_modules\/(react|react-dom|scheduler)\//.test(id)) return 'react';
          if (/node_modules\/@tanstack\//.test(id)) return 'tanstack';
          return undefined;
        },
      },
    },
  },
  server: {
    port: Number(process.env.VITE_PORT ?? 5173),
    proxy: Object.fromEntries(['/api', '/v1', '/healthz'].map((p) => [p, { target, changeOrigin: false }])),
  },
});
