import { fileURLToPath } from 'node:url';
import { build as esbuild } from 'esbuild';
import { defineConfig, type Plugin } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));
/** `npm run dev`: the dev server proxies API calls to a running Spyglass (SPYGLASS_URL, default :5560). */
const target = process.env.SPYGLASS_URL ?? 'http://127.0.0.1:5560';

/**
 * index.html's early requests (early.ts) as an inline script: bundled on their own (the list's
 * URL codec with them) and written where index.html has `<script data-early></script>`.
 */
function earlyRequests(): Plugin {
  return {
    name: 'spyglass-early-requests',
    async transformIndexHtml(html) {
      const out = await esbuild({ entryPoints: [fileURLToPath(new URL('early.ts', import.meta.url))], bundle: true, write: false, format: 'iife', minify: true, target: 'es2020', legalComments: 'none' });
      const code = out.outputFiles[0].text.trim();
      if (!html.includes('<script data-early></script>') || code.includes('</script')) throw new Error('index.html: no place for the early requests, or a bundle that would end its script');
      return html.replace('<script data-early></script>', () => `<script>${code}</script>`);
    },
  };
}

export default defineConfig({
  root,
  base: '/',
  plugins: [earlyRequests()],
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
