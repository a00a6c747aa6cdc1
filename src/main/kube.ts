/** What the CLI uses of the Kubernetes backend without a cluster: DAG file <-> Dag manifest. */
export { dagManifest, manifestText } from '../adapters/kube/manifest.js';
