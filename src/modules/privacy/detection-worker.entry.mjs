// Entry of a privacy detection worker thread when the sources run (detection-pool.ts starts
// it): the worker is TypeScript, run through tsx as the main thread is. The bundle has its own
// entry of this name beside its code, dist/server/detection-worker.entry.mjs
// (scripts/build-server.mjs), which needs no tsx.
import { register } from 'tsx/esm/api';

register();
await import('./detection-worker.ts');
