export { simulationsModule, type SimulationsPorts } from './module.ts';
export { resealAgentHeaders, sealedAgentHeaders } from './reseal-headers.ts';
