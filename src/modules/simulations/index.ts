export { registerSimulations, type Simulations } from './module.ts';
