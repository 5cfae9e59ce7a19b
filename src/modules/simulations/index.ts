export { registerSimulations, type Simulations } from './module.ts';
export { resealAgentHeaders, sealedAgentHeaders } from './reseal-headers.ts';
