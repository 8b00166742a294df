{{/* The name of every object of the release (and its app.kubernetes.io/name label). */}}
{{- define "ksched.fullname" -}}
{{- default .Release.Name .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "ksched.labels" -}}
app.kubernetes.io/name: {{ include "ksched.fullname" . }}
{{- end -}}

{{/* The Lease leader election holds. */}}
{{- define "ksched.leaseName" -}}
{{- default (include "ksched.fullname" .) .Values.leaderElection.resourceName -}}
{{- end -}}

{{/* The KubeSchedulerConfiguration the ConfigMap holds. */}}
{{- define "ksched.schedulerConfig" -}}
{{- $cfg := dict "apiVersion" "kubescheduler.config.k8s.io/v1" "kind" "KubeSchedulerConfiguration" -}}
{{- $le := dict "leaderElect" .Values.leaderElection.enabled "leaseDuration" .Values.leaderElection.leaseDuration "renewDeadline" .Values.leaderElection.renewDeadline "retryPeriod" .Values.leaderElection.retryPeriod "resourceLock" "leases" "resourceName" (include "ksched.leaseName" .) "resourceNamespace" .Release.Namespace -}}
{{- $_ := set $cfg "leaderElection" $le -}}
{{- $_ := set $cfg "clientConnection" (dict "qps" .Values.clientConnection.qps "burst" .Values.clientConnection.burst) -}}
{{- $_ := set $cfg "profiles" .Values.profiles -}}
{{- $cfg = merge $cfg (deepCopy .Values.schedulerConfig) -}}
{{- toYaml $cfg -}}
{{- end -}}
