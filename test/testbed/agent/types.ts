/** Plain-JSON shapes of the Kubernetes objects the agent handles (only the fields it uses). */
import type { ObjectMeta } from './kube.js';

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    secretKeyRef?: { name: string; key: string; optional?: boolean };
    configMapKeyRef?: { name: string; key: string; optional?: boolean };
    fieldRef?: { fieldPath: string };
    resourceFieldRef?: { containerName?: string; resource: string; divisor?: string };
  };
}
export interface EnvFromSource {
  prefix?: string;
  configMapRef?: { name: string; optional?: boolean };
  secretRef?: { name: string; optional?: boolean };
}
export interface Container {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  envFrom?: EnvFromSource[];
  workingDir?: string;
  restartPolicy?: string; // init containers: "Always" makes a sidecar
  stdin?: boolean;
  resources?: { limits?: Record<string, string>; requests?: Record<string, string> };
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean; subPath?: string }[];
}
export interface Toleration {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: string;
}
export interface NodeSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';
  values?: string[];
}
export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}
export interface KeyToPath {
  key: string;
  path: string;
}
export interface DownwardAPIFile {
  path: string;
  fieldRef?: { fieldPath: string };
  resourceFieldRef?: { containerName?: string; resource: string; divisor?: string };
}
/** One source of a projected volume (the kubelet writes them all into one directory). */
export interface ProjectedSource {
  serviceAccountToken?: { path: string; audience?: string; expirationSeconds?: number };
  configMap?: { name: string; optional?: boolean; items?: KeyToPath[] };
  secret?: { name: string; optional?: boolean; items?: KeyToPath[] };
  downwardAPI?: { items?: DownwardAPIFile[] };
}
export interface Volume {
  name: string;
  emptyDir?: object;
  configMap?: { name: string; optional?: boolean; items?: KeyToPath[] };
  secret?: { secretName: string; optional?: boolean; items?: KeyToPath[] };
  downwardAPI?: { items?: DownwardAPIFile[] };
  projected?: { sources?: ProjectedSource[] };
  persistentVolumeClaim?: { claimName: string; readOnly?: boolean };
  /** An image volume (KEP-4639): the agent mounts the local directory its `images` map gives the reference. */
  image?: { reference: string; pullPolicy?: string };
}
export interface PodSpec {
  nodeName?: string;
  nodeSelector?: Record<string, string>;
  schedulerName?: string;
  restartPolicy?: 'Always' | 'OnFailure' | 'Never';
  activeDeadlineSeconds?: number;
  terminationGracePeriodSeconds?: number;
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  hostNetwork?: boolean;
  hostname?: string;
  tolerations?: Toleration[];
  affinity?: { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms: NodeSelectorTerm[] } } };
  initContainers?: Container[];
  containers: Container[];
  volumes?: Volume[];
}
export interface ContainerState {
  waiting?: { reason: string; message?: string };
  running?: { startedAt: string };
  terminated?: {
    exitCode: number;
    signal?: number;
    reason: string;
    message?: string;
    startedAt?: string;
    finishedAt: string;
    containerID?: string;
  };
}
export interface ContainerStatus {
  name: string;
  image: string;
  imageID: string;
  containerID?: string;
  ready: boolean;
  started: boolean;
  restartCount: number;
  state: ContainerState;
  lastState: ContainerState;
}
export interface PodCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastProbeTime?: string | null;
}
export interface PodStatus {
  phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
  reason?: string;
  message?: string;
  conditions?: PodCondition[];
  hostIP?: string;
  hostIPs?: { ip: string }[];
  podIP?: string;
  podIPs?: { ip: string }[];
  startTime?: string;
  initContainerStatuses?: ContainerStatus[];
  containerStatuses?: ContainerStatus[];
  nominatedNodeName?: string;
}
export interface Pod {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: PodSpec;
  status?: PodStatus;
}
export interface Taint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}
export interface Node {
  metadata: ObjectMeta;
  spec?: { unschedulable?: boolean; taints?: Taint[] };
  status?: { conditions?: { type: string; status: string }[] };
}
export interface Lease {
  metadata: ObjectMeta;
  spec?: { holderIdentity?: string; leaseDurationSeconds?: number; renewTime?: string };
}
export interface KeyedData {
  metadata: ObjectMeta;
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
  stringData?: Record<string, string>;
}
