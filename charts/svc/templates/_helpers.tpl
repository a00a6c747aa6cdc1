{{/* The base name of the release's objects: the release name, with "-svc" unless it already says svc. */}}
{{- define "svc.fullname" -}}
{{- if contains "svc" .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-svc" .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "svc.labels" -}}
app.kubernetes.io/name: svc
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* Selector labels of one component (operator, api). */}}
{{- define "svc.selector" -}}
app.kubernetes.io/name: svc
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "svc.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{- define "svc.dataClaim" -}}
{{- default (printf "%s-data" (include "svc.fullname" .)) .Values.persistence.existingClaim -}}
{{- end -}}

{{- define "svc.serviceAccount" -}}
{{- printf "%s-%s" (include "svc.fullname" .root) .component -}}
{{- end -}}

{{/* svc's own Secrets in the namespace (comma-separated): the auth records, the webhook's TLS key, the API's and the bucket's credentials. */}}
{{- define "svc.protectedSecrets" -}}
{{- $names := list "svc-users" "svc-api-keys" "svc-webhooks" (printf "%s-webhook-tls" (include "svc.fullname" .)) -}}
{{- with (include "svc.authSecret" .) }}{{ $names = append $names . }}{{ end -}}
{{- if eq .Values.logStore.type "s3" }}{{ with .Values.logStore.s3.credentialsSecret }}{{ $names = append $names . }}{{ end }}{{ end -}}
{{- join "," $names -}}
{{- end -}}

{{/*
The namespaces the operator watches besides the release namespace, as SVC_WATCH_NAMESPACES spells them:
"all", names joined by commas, or "" (the release namespace only).
*/}}
{{- define "svc.watchNamespaces" -}}
{{- $w := .Values.watch.namespaces -}}
{{- if kindIs "slice" $w }}{{ join "," $w }}{{ else }}{{ $w | default "" }}{{ end -}}
{{- end -}}

{{/* The watched namespaces other than the release namespace, as a list (empty with "all" or none). */}}
{{- define "svc.watchedList" -}}
{{- $w := .Values.watch.namespaces -}}
{{- $list := ternary $w (list) (kindIs "slice" $w) -}}
{{- if and (kindIs "string" $w) (ne $w "") (ne $w "all") }}{{ $list = splitList "," $w }}{{ end -}}
{{- without $list .Release.Namespace | toJson -}}
{{- end -}}

{{/* Environment both svc processes share. */}}
{{- define "svc.commonEnv" -}}
- name: SVC_NAMESPACE
  valueFrom: {fieldRef: {fieldPath: metadata.namespace}}
- name: SVC_HOST
  value: 0.0.0.0
- name: SVC_DATA_DIR
  value: {{ .Values.dataDir | quote }}
- name: TMPDIR
  value: /tmp
# The pod policy of steps: the API (validation, admission) and the operator (before a Pod) check the same one.
- name: SVC_POD_POLICY
  value: {{ include "svc.podPolicy" . | quote }}
{{- if eq .Values.logStore.type "s3" }}
{{- with .Values.logStore.s3 }}
- name: SVC_S3_BUCKET
  value: {{ required "logStore.s3.bucket is required with logStore.type=s3" .bucket | quote }}
{{- with .endpoint }}
- name: SVC_S3_ENDPOINT
  value: {{ . | quote }}
{{- end }}
- name: SVC_S3_REGION
  value: {{ .region | quote }}
- name: SVC_S3_PREFIX
  value: {{ .prefix | quote }}
{{- end }}
{{- else if ne .Values.logStore.type "volume" }}
{{- fail (printf "logStore.type: %q must be volume or s3" .Values.logStore.type) }}
{{- end }}
{{- range $k, $v := .Values.env }}
- name: {{ $k }}
  value: {{ $v | quote }}
{{- end }}
{{- end -}}

{{/* Volumes both svc processes mount: the data claim and a writable /tmp (the root filesystem is read-only). */}}
{{- define "svc.volumeMounts" -}}
- name: data
  mountPath: {{ .Values.dataDir | quote }}
- name: tmp
  mountPath: /tmp
{{- end -}}

{{- define "svc.volumes" -}}
- name: data
  {{- if eq .Values.logStore.type "s3" }}
  emptyDir: {}
  {{- else }}
  persistentVolumeClaim: {claimName: {{ include "svc.dataClaim" . }}}
  {{- end }}
- name: tmp
  emptyDir: {}
{{- end -}}

{{/* The S3 credentials, for both svc processes. */}}
{{- define "svc.s3EnvFrom" -}}
{{- if and (eq .Values.logStore.type "s3") .Values.logStore.s3.credentialsSecret }}
- secretRef: {name: {{ .Values.logStore.s3.credentialsSecret }}}
{{- end }}
{{- end -}}

{{/* Placement and pod-level settings of one component's values (.values) . */}}
{{- define "svc.podSettings" -}}
{{- with .root.Values.imagePullSecrets }}
imagePullSecrets:
{{- range . }}
  - name: {{ . }}
{{- end }}
{{- end }}
{{- with .values.nodeSelector }}
nodeSelector: {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.tolerations }}
tolerations: {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.affinity }}
affinity: {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- with .root.Values.podSecurityContext }}
securityContext: {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/*
The Secret the API reads its auth settings from: auth.existingSecret, or with builtin and none given
the chart's own (auth.yaml); empty with auth.mode=none. Fails on a mode the chart cannot serve safely.
*/}}
{{- define "svc.authSecret" -}}
{{- $mode := .Values.auth.mode -}}
{{- if eq $mode "none" -}}
{{- if not .Values.auth.allowUnauthenticated }}
{{- fail "auth.mode=none serves the API (starting runs of commands included) to anyone who reaches it: set auth.allowUnauthenticated=true as well to install it so, or use auth.mode=builtin" }}
{{- end -}}
{{- else if eq $mode "builtin" -}}
{{- default (printf "%s-auth" (include "svc.fullname" .)) .Values.auth.existingSecret -}}
{{- else if eq $mode "oidc" -}}
{{- required "auth.mode=oidc needs auth.existingSecret: a Secret with SVC_AUTH_TOKEN_SECRET and SVC_AUTH_OIDC_CLIENT_SECRET" .Values.auth.existingSecret -}}
{{- else -}}
{{- fail (printf "auth.mode: %q must be builtin, oidc or none" $mode) }}
{{- end -}}
{{- end -}}

{{/*
The pod policy as SVC_POD_POLICY spells it (JSON); root and added capabilities need a Pod Security level
below restricted, which would refuse such Pods anyway.
*/}}
{{- define "svc.podPolicy" -}}
{{- $p := .Values.podPolicy -}}
{{- $level := .Values.podSecurity.enforce -}}
{{- if not (has $level (list "restricted" "baseline" "")) }}{{ fail (printf "podSecurity.enforce: %q must be restricted, baseline or \"\"" $level) }}{{ end -}}
{{- if and (eq $level "restricted") (or $p.root (gt (len (without ($p.capabilities | default list) "NET_BIND_SERVICE")) 0)) -}}
{{- fail "podPolicy.root and podPolicy.capabilities need podSecurity.enforce=baseline or \"\": Pod Security restricted refuses such Pods" -}}
{{- end -}}
{{- toJson $p -}}
{{- end -}}

{{/* The namespaces the operator labels for Pod Security admission (names; none with watch.namespaces=all: every namespace). */}}
{{- define "svc.podSecurityNamespaces" -}}
{{- $watched := include "svc.watchNamespaces" . -}}
{{- if ne $watched "all" -}}
{{- toJson (concat (list .Release.Namespace) (fromJsonArray (include "svc.watchedList" .))) -}}
{{- else -}}[]{{- end -}}
{{- end -}}

{{/*
The Host names the API answers (SVC_ALLOWED_HOSTS): its Service's names in the cluster, the Ingress
host when there is one, and api.allowedHosts.
*/}}
{{- define "svc.apiAllowedHosts" -}}
{{- $svc := printf "%s-api" (include "svc.fullname" .) -}}
{{- $ns := .Release.Namespace -}}
{{- $hosts := list $svc (printf "%s.%s" $svc $ns) (printf "%s.%s.svc" $svc $ns) (printf "%s.%s.svc.%s" $svc $ns .Values.api.clusterDomain) -}}
{{- if .Values.api.ingress.enabled }}{{ $hosts = append $hosts .Values.api.ingress.host }}{{ end -}}
{{- join "," (concat $hosts .Values.api.allowedHosts) -}}
{{- end -}}
