export * from './run-store.js';
export * from './clock.js';
export * from './executor.js';
export * from './engine-ports.js';
export * from './log-store.js';
