export { registerSimulations, type Simulations } from './module.ts';
export { resealAgentHeaders } from './reseal-headers.ts';
