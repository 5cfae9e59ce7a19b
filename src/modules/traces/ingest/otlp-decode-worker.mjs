// Entry of the OTLP decode worker thread when the sources run (otlp-decode-thread.ts starts
// it): the host is TypeScript, run through tsx as the main thread is. The bundle has its own
// entry of this name beside its code, dist/server/otlp-decode-worker.mjs
// (scripts/build-server.mjs), which needs no tsx.
import { register } from 'tsx/esm/api';

register();
await import('./otlp-decode-host.ts');
