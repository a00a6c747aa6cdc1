export * from './spec/types.js';
