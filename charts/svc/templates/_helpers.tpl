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
  persistentVolumeClaim: {claimName: {{ include "svc.dataClaim" . }}}
- name: tmp
  emptyDir: {}
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
