// Entry of the PGlite worker thread: the host is TypeScript, run through tsx as the main thread is.
import { register } from 'tsx/esm/api';

register();
await import('./pglite-host.ts');
