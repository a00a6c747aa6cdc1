// jest globalTeardown: stop the Kubernetes test bed started by global-setup.js. See global.js.
export { teardown as default } from './global.js';
