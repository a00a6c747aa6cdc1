// jest globalSetup: start (or reuse) the Kubernetes test bed. See global.js.
export { setup as default } from './global.js';
