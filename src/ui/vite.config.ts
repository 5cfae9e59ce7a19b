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
    // Which chunks each page's module needs: the server names them in the page's first answer (src/page-code.ts).
    manifest: true,
    chunkSizeWarningLimit: 1200,
    rollupOptions: {
      // Mantine marks its modules "use client" (for React Server Components); meaningless in a bundle.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
      output: {
        // Libraries every page uses in long-cached chunks the first answer preloads; page code and
        // CodeMirror load per route. Mantine's components and the icons are one chunk: split by the
        // pages that use them they made about 60 files of 1-5 KB, which a browser fetches 6 at a
        // time over HTTP/1.1 after the page's own code, one round trip each (the first load of
        // the traces list asked for 69 files); one chunk costs the sign-in page 166 -> 262 KiB gzip.
        manualChunks(id) {
          if (/node_modules\/(react|react-dom|scheduler)\//.test(id)) return 'react';
          if (/node_modules\/@tanstack\//.test(id)) return 'tanstack';
          if (/node_modules\/(@mantine\/(core|hooks|notifications)|@tabler\/icons-react|@floating-ui)\//.test(id)) return 'mantine';
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
