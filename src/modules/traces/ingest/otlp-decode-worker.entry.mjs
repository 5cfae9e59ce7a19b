// Entry of the OTLP decode worker thread when the sources run (otlp-decode-pool.ts starts
// it): the worker is TypeScript, run through tsx as the main thread is. The bundle has its own
// entry of this name beside its code, dist/server/otlp-decode-worker.entry.mjs
// (scripts/build-server.mjs), which needs no tsx.
import { register } from 'tsx/esm/api';

register();
await import('./otlp-decode-worker.ts');
