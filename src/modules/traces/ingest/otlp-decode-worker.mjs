// Entry of the OTLP decode worker threads (otlp-decode-thread.ts starts them): the host is
// TypeScript, run through tsx as the main thread is. A bundle builds its own entry of this
// name from ./otlp-decode-host.ts, which starts serving when imported.
import { register } from 'tsx/esm/api';

register();
await import('./otlp-decode-host.ts');
