#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx: no build step between a clone and `npm start`.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
try {
  const code = await main(process.argv.slice(2));
  if (code >= 0) process.exit(code);
} catch (err) {
  console.error(err instanceof Error ? err.stack ?? err.message : err);
  process.exit(1);
}
