{{/* Names, labels, images and the hardened security contexts shared by the templates. */}}

{{- define "ax.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The name prefix: the release name, or RELEASE-ax when it does not contain "ax". */}}
{{- define "ax.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "ax.operatorName" -}}{{ include "ax.fullname" . }}-operator{{- end -}}
{{- define "ax.dnsName" -}}{{ include "ax.fullname" . }}-dns{{- end -}}
{{- define "ax.routeTable" -}}{{ default (printf "%s-route-table" (include "ax.fullname" .)) .Values.routeTable.name }}{{- end -}}

{{- define "ax.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "ax.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: ax
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Selector labels of one component: (dict "ctx" $ "component" "dns"). */}}
{{- define "ax.selectorLabels" -}}
app.kubernetes.io/name: {{ include "ax.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "ax.componentLabels" -}}
{{ include "ax.labels" .ctx }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* repository:tag of an image value {repository, tag, pullPolicy}; tag defaults to appVersion. */}}
{{- define "ax.image" -}}
{{- printf "%s:%s" .image.repository (default .ctx.Chart.AppVersion .image.tag) -}}
{{- end -}}

{{- define "ax.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: {{ .Values.podSecurityContext.runAsUser }}
runAsGroup: {{ .Values.podSecurityContext.runAsGroup }}
fsGroup: {{ .Values.podSecurityContext.fsGroup }}
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* A container's security context; (list "NET_BIND_SERVICE") adds capabilities. */}}
{{- define "ax.containerSecurityContext" -}}
runAsNonRoot: true
readOnlyRootFilesystem: true
allowPrivilegeEscalation: false
privileged: false
capabilities:
  drop: [ALL]
  {{- if . }}
  add: {{ toJson . }}
  {{- end }}
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* The ax-dns --config file. */}}
{{- define "ax.dnsConfigFile" -}}
{{- $dns := .Values.dns -}}
{{- $geo := $dns.geo -}}
snapshot-configmap: {{ printf "%s/%s" .Release.Namespace (include "ax.routeTable" .) }}
listen: {{ toJson $dns.listen }}
http-listen: {{ printf "0.0.0.0:%v" $dns.httpPort | quote }}
api-listen: {{ printf "0.0.0.0:%v" $dns.apiPort | quote }}
{{- if $dns.admin.tokenSecret }}
admin-listen: {{ printf "127.0.0.1:%v" $dns.admin.port | quote }}
admin-token-file: /etc/ax/admin/token
{{- end }}
log-level: {{ $dns.logLevel }}
workers: {{ $dns.workers }}
edns-udp-size: {{ $dns.ednsUdpSize }}
snapshot-history: {{ $dns.snapshotHistory }}
{{- if $dns.rrl.enabled }}
rrl-rate: {{ $dns.rrl.rate }}
rrl-nxdomain-rate: {{ $dns.rrl.nxdomainRate }}
rrl-error-rate: {{ $dns.rrl.errorRate }}
rrl-burst: {{ $dns.rrl.burst }}
rrl-slip: {{ $dns.rrl.slip }}
{{- else }}
no-rrl: true
{{- end }}
{{- if or $geo.databases $geo.asnDatabases $geo.ipdbDatabases $geo.ip2regionDatabases }}
geo-schema: {{ $geo.schema }}
geo-reload-interval: {{ $geo.reloadInterval }}
geo-copy-dir: /var/cache/ax/geo
{{- with $geo.databases }}
geo-db:
{{- range . }}
  - {{ printf "%s/%s" $geo.mountPath . | quote }}
{{- end }}
{{- end }}
{{- with $geo.asnDatabases }}
asn-db:
{{- range . }}
  - {{ printf "%s/%s" $geo.mountPath . | quote }}
{{- end }}
{{- end }}
{{- with $geo.ipdbDatabases }}
ipdb:
{{- range . }}
  - {{ printf "%s/%s" $geo.mountPath . | quote }}
{{- end }}
{{- end }}
{{- with $geo.ip2regionDatabases }}
ip2region:
{{- range . }}
  - {{ printf "%s/%s" $geo.mountPath . | quote }}
{{- end }}
{{- end }}
{{- with $geo.fields }}
geo-field:
{{- range $field, $path := . }}
  - {{ printf "%s=%s" $field $path | quote }}
{{- end }}
{{- end }}
{{- if $geo.cities }}
geo-cities: true
{{- end }}
{{- with $geo.precedence }}
geo-precedence:
{{- range $group, $kinds := . }}
  - {{ printf "%s=%s" $group (join "," $kinds) | quote }}
{{- end }}
{{- end }}
{{- end }}
{{- with $dns.zones }}
zones:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* NetworkPolicy peers allowed to reach the HTTP ports. */}}
{{- define "ax.httpFrom" -}}
{{- if .Values.networkPolicy.httpFrom -}}
{{ toYaml .Values.networkPolicy.httpFrom }}
{{- else if .Values.networkPolicy.httpFromNamespaceLabels -}}
- namespaceSelector:
    matchLabels:
      {{- toYaml .Values.networkPolicy.httpFromNamespaceLabels | nindent 6 }}
{{- else -}}
- podSelector: {}
{{- end -}}
{{- end -}}

{{- /* A label map as "k=v,k2=v2", keys in order: the admission policy's parameter form. */ -}}
{{- define "ax.labelList" -}}
{{- $pairs := list -}}
{{- range $key, $value := . }}{{ $pairs = append $pairs (printf "%s=%s" $key $value) }}{{ end -}}
{{- join "," $pairs -}}
{{- end -}}
