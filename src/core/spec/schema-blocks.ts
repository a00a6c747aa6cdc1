/**
 * JSON Schema definitions of the connection and policy blocks (SPEC 2.2, 2.3, 2.5). Part of DAG_SCHEMA
 * (schema.ts); kept structural (types, enums, alternative forms) so it also serves CRDs and the editor.
 */

const str = (description: string) => ({ type: 'string', description });
const bool = (description: string) => ({ type: 'boolean', description });
const int = (description: string, minimum?: number) =>
  minimum === undefined ? { type: 'integer', description } : { type: 'integer', minimum, description };
const ref = (name: string, description?: string) =>
  description ? { $ref: `#/definitions/${name}`, description } : { $ref: `#/definitions/${name}` };
const strArray = (description: string) => ({ type: 'array', items: { type: 'string' }, description });
const scalar = { type: ['string', 'number', 'boolean'] };
/** A Kubernetes resource quantity (no sign: requests, limits and sizes are never negative). */
const QUANTITY = '^(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE][+-]?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';
const quantity = (description: string) => ({
  description,
  anyOf: [
    { type: 'string', pattern: QUANTITY, description: 'A Kubernetes quantity such as 500m, 2, 1.5Gi or 128Mi' },
    { type: 'number', minimum: 0 },
  ],
});
const quantityMap = (description: string) => ({ type: 'object', additionalProperties: quantity('Quantity.'), description });
const keyToPaths = {
  type: 'array',
  description: 'Keys to project, each to a relative path (default: every key, named after it).',
  items: {
    type: 'object', additionalProperties: false, required: ['key', 'path'],
    properties: { key: str('Key of the data.'), path: str('Relative file path in the volume.') },
  },
};

export const blockDefinitions = {
  stringOrList: {
    description: 'A string or a list of strings.',
    anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
  },
  intOrList: {
    description: 'An integer or a list of integers.',
    anyOf: [{ type: 'integer' }, { type: 'array', items: { type: 'integer' } }],
  },
  stringMap: { type: 'object', additionalProperties: { type: 'string' }, description: 'Map of string values.' },
  scalarMap: { type: 'object', additionalProperties: scalar, description: 'Map of scalar values (kept as text).' },
  shell: {
    description: 'Shell and arguments: "bash -e" or [bash, -e].',
    anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
  },
  env: {
    description: 'Variables: a map NAME: value, or a list of `NAME: value` maps and `NAME=value` strings (order kept).',
    anyOf: [
      { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean', 'null'] } },
      {
        type: 'array',
        items: {
          anyOf: [
            { type: 'string' },
            { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean', 'null'] } },
          ],
        },
      },
    ],
  },
  backoff: {
    description: 'Interval multiplier: true means 2, false means constant, or a number greater than 1.',
    anyOf: [{ type: 'boolean' }, { type: 'number', exclusiveMinimum: 1 }],
  },
  precondition: {
    type: 'object',
    description: 'A condition that must hold, or the step is skipped (the run is aborted at DAG level).',
    additionalProperties: false,
    properties: {
      condition: str('Command, or expression such as ${VAR} or `date +%d`.'),
      command: str('Command that must exit 0 (same as condition without expected).'),
      expected: str('Value to compare against any output line; prefix re: for a regular expression.'),
      negate: bool('Invert the result (default false).'),
      error: str('Message recorded when the condition fails.'),
    },
  },
  preconditions: {
    description: 'Conditions: a command string, one object, or a list of strings and objects.',
    anyOf: [
      { type: 'string' },
      ref('precondition'),
      { type: 'array', items: { anyOf: [{ type: 'string' }, ref('precondition')] } },
    ],
  },
  container: {
    description: 'Container: a string (name of a running container, exec mode) or an object (image or exec mode).',
    anyOf: [
      { type: 'string' },
      {
        type: 'object',
        additionalProperties: false,
        properties: {
          exec: str('Exec mode: name of a running container. Only user, workingDir, env and shell may accompany it.'),
          name: str('Container name.'),
          image: str('Image mode: image to run (required unless exec is given).'),
          pullPolicy: { type: 'string', enum: ['always', 'missing', 'never'], description: 'Default missing.' },
          env: {
            description: 'List of KEY=VALUE (a map is accepted too).',
            anyOf: [{ type: 'array', items: { type: 'string' } }, ref('scalarMap')],
          },
          volumes: strArray('host:container[:ro|rw]; relative host paths resolve against workingDir.'),
          workingDir: str('Working directory inside the container.'),
          platform: str('Image platform, e.g. linux/amd64.'),
          user: str('User inside the container.'),
          ports: { type: 'array', items: { type: ['string', 'integer'] }, description: 'Published ports.' },
          network: str('Network name.'),
          startup: { type: 'string', enum: ['keepalive', 'entrypoint', 'command'], description: 'Default keepalive.' },
          command: strArray('Command used when startup is command, or run when the step has no command.'),
          waitFor: { type: 'string', enum: ['running', 'healthy'], description: 'Readiness condition (default running).' },
          logPattern: str('Regular expression that must appear in the log before steps run.'),
          restartPolicy: { type: 'string', enum: ['no', 'always', 'unless-stopped'], description: 'Default no.' },
          keepContainer: bool('Keep the container after the run (default false).'),
          shell: ref('shell', 'Shell path then flags; the step command is appended as the last argument.'),
        },
      },
    ],
  },
  ssh: {
    type: 'object',
    description: 'SSH connection. At DAG level it is exclusive with container.',
    additionalProperties: false,
    properties: {
      user: str('Remote user.'),
      host: str('Remote host.'),
      port: { type: ['string', 'integer'], description: 'Port (default "22").' },
      key: str('Private key file (default: the standard key files of the user).'),
      password: str('Password.'),
      strictHostKey: bool('Check the host key (default true).'),
      knownHostFile: str('Known-hosts file (default the user known-hosts file).'),
      shell: ref('shell', 'Remote shell.'),
    },
  },
  llm: {
    type: 'object',
    description: 'LLM settings; a step-level llm replaces the DAG-level one completely.',
    additionalProperties: false,
    properties: {
      provider: str('Provider name (hosted, aggregator, or local).'),
      model: str('Model name.'),
      system: str('System prompt.'),
      temperature: { type: 'number', minimum: 0, maximum: 2, description: 'Sampling temperature 0.0-2.0.' },
      maxTokens: int('Maximum tokens to generate.', 1),
      topP: { type: 'number', minimum: 0, maximum: 1, description: 'Nucleus sampling 0.0-1.0.' },
      baseURL: str('Provider base URL.'),
      apiKey: str('API key.'),
      stream: bool('Stream the response (default true).'),
      tools: strArray('Names of DAGs offered to the model as tools.'),
      maxToolIterations: int('Maximum tool-calling rounds (default 10).', 1),
      thinking: {
        type: 'object',
        additionalProperties: false,
        description: 'Extended reasoning.',
        properties: {
          enabled: bool('Enable thinking (default true when the block is present).'),
          effort: { type: 'string', enum: ['low', 'medium', 'high', 'xhigh'], description: 'Reasoning effort.' },
        },
      },
    },
  },
  redis: {
    type: 'object',
    description: 'Redis connection; step config values override it field by field.',
    additionalProperties: false,
    properties: {
      url: str('redis:// URL.'),
      host: str('Host.'),
      port: int('Port (default 6379).', 1),
      password: str('Password.'),
      username: str('Username.'),
      db: { type: 'integer', minimum: 0, maximum: 15, description: 'Database 0-15.' },
      tls: bool('Use TLS.'),
      mode: { type: 'string', enum: ['standalone', 'sentinel', 'cluster'], description: 'Default standalone.' },
      sentinelMaster: str('Sentinel master name (sentinel mode).'),
      sentinelAddrs: strArray('Sentinel addresses (sentinel mode).'),
      clusterAddrs: strArray('Cluster node addresses (cluster mode).'),
    },
  },
  s3: {
    type: 'object',
    description: 'S3 connection inherited by s3 steps.',
    additionalProperties: false,
    properties: {
      region: str('Region.'),
      accessKeyId: str('Access key id.'),
      secretAccessKey: str('Secret access key.'),
      bucket: str('Default bucket.'),
      endpoint: str('Endpoint URL for S3-compatible stores.'),
      forcePathStyle: bool('Use path-style addressing.'),
    },
  },
  smtp: {
    type: 'object',
    description: 'SMTP server for mail.',
    additionalProperties: false,
    properties: {
      host: str('Host.'),
      port: { type: ['string', 'integer'], description: 'Port.' },
      username: str('Username.'),
      password: str('Password.'),
    },
  },
  otel: {
    type: 'object',
    description: 'OpenTelemetry tracing of runs.',
    additionalProperties: false,
    properties: {
      enabled: bool('Enable tracing (default false).'),
      endpoint: str('Collector endpoint.'),
      headers: ref('scalarMap', 'Headers sent to the collector.'),
      insecure: bool('Plain-text connection (default false).'),
      timeout: { type: 'string', pattern: '^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$', description: 'Duration such as 30s or 1m30s.' },
      resource: ref('scalarMap', 'Resource attributes.'),
    },
  },
  mail: {
    type: 'object',
    description: 'Mail settings.',
    additionalProperties: false,
    properties: {
      from: str('Sender.'),
      to: ref('stringOrList', 'Recipients.'),
      prefix: str('Subject prefix.'),
      attachLogs: bool('Attach step logs (default false).'),
    },
  },
  mailOn: {
    type: 'object',
    description: 'Which outcomes send mail.',
    additionalProperties: false,
    properties: { success: bool('Mail on success.'), failure: bool('Mail on failure.'), wait: bool('Mail on waiting.') },
  },
  secret: {
    type: 'object',
    description: 'A secret injected as an environment variable; never persisted, masked in logs.',
    additionalProperties: false,
    required: ['name', 'provider', 'key'],
    properties: {
      name: str('Environment variable exposed to steps.'),
      provider: str('Provider: env or file (built in), or another configured provider.'),
      key: str('Source variable name (env) or file path (file).'),
      options: ref('stringMap', 'Provider options.'),
    },
  },
  kubernetes: {
    type: 'object',
    description:
      'Settings of the step Pods (kubernetes backend only; the embedded engine ignores them). A step block overrides the DAG block field by field; labels, annotations and nodeSelector merge key by key.',
    additionalProperties: false,
    properties: {
      resources: {
        type: 'object',
        additionalProperties: false,
        description: 'Container resources (replaced as a whole by a step block).',
        properties: {
          requests: quantityMap('Requested resources: name (cpu, memory, ...) -> quantity.'),
          limits: quantityMap('Resource limits: name -> quantity.'),
        },
      },
      serviceAccountName: str('ServiceAccount of the Pod (over the operator setting); its token is then mounted as the ServiceAccount says.'),
      nodeSelector: ref('scalarMap', 'Node labels the Pod needs; workerSelector wins on a shared key.'),
      tolerations: { type: 'array', items: ref('kubernetesToleration'), description: 'Taints the Pod tolerates.' },
      affinity: { type: 'object', description: 'Pod affinity (nodeAffinity, podAffinity, podAntiAffinity) as Kubernetes spells it.' },
      labels: ref('scalarMap', 'Labels of the Pod; svc.io/* and app.kubernetes.io/managed-by are svc\'s own.'),
      annotations: ref('scalarMap', 'Annotations of the Pod; svc.io/* are svc\'s own.'),
      imagePullSecrets: strArray('Names of Secrets used to pull the step image.'),
      volumes: { type: 'array', items: ref('kubernetesVolume'), description: 'Pod volumes, each with exactly one source.' },
      volumeMounts: { type: 'array', items: ref('kubernetesVolumeMount'), description: 'Mounts in the step container, each naming a volume.' },
      securityContext: { type: 'object', description: 'securityContext of the step container, as Kubernetes spells it.' },
      podSecurityContext: { type: 'object', description: 'securityContext of the Pod, as Kubernetes spells it.' },
      priorityClassName: str('PriorityClass of the Pod.'),
    },
  },
  kubernetesToleration: {
    type: 'object',
    description: 'A toleration of the Pod.',
    additionalProperties: false,
    properties: {
      key: str('Taint key; empty with operator Exists tolerates every taint.'),
      operator: { type: 'string', enum: ['Exists', 'Equal'], description: 'Default Equal.' },
      value: str('Taint value (operator Equal).'),
      effect: { type: 'string', enum: ['NoSchedule', 'PreferNoSchedule', 'NoExecute'], description: 'Effect matched; empty matches all.' },
      tolerationSeconds: int('How long a NoExecute taint is tolerated.', 0),
    },
  },
  kubernetesVolume: {
    type: 'object',
    description: 'A Pod volume: name and exactly one source.',
    additionalProperties: false,
    required: ['name'],
    properties: {
      name: str('Volume name (a DNS label; not svc-entry or svc-data).'),
      persistentVolumeClaim: {
        type: 'object', additionalProperties: false, required: ['claimName'], description: 'A PersistentVolumeClaim.',
        properties: { claimName: str('Claim name.'), readOnly: bool('Mount read-only (default false).') },
      },
      configMap: {
        type: 'object', additionalProperties: false, required: ['name'], description: 'A ConfigMap.',
        properties: { name: str('ConfigMap name.'), items: keyToPaths },
      },
      secret: {
        type: 'object', additionalProperties: false, required: ['secretName'], description: 'A Secret.',
        properties: { secretName: str('Secret name.'), items: keyToPaths },
      },
      emptyDir: {
        type: 'object', additionalProperties: false, description: 'An empty directory living as long as the Pod.',
        properties: {
          medium: { type: 'string', enum: ['Memory'], description: 'Memory for a tmpfs (default: the node\'s storage).' },
          sizeLimit: quantity('Size limit.'),
        },
      },
    },
  },
  kubernetesVolumeMount: {
    type: 'object',
    description: 'A mount of one of the volumes in the step container.',
    additionalProperties: false,
    required: ['name', 'mountPath'],
    properties: {
      name: str('Name of a declared volume.'),
      mountPath: str('Path in the container.'),
      subPath: str('Path within the volume (default its root).'),
      readOnly: bool('Mount read-only (default false).'),
    },
  },
  registryAuths: {
    type: 'object',
    description: 'Registry host to credentials.',
    additionalProperties: {
      type: 'object',
      additionalProperties: false,
      required: ['username', 'password'],
      properties: { username: { type: 'string' }, password: { type: 'string' } },
    },
  },
} as const;
