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

{{/* The operator runs here: enabled, and not a member cluster (whose control plane's operator publishes to it). */}}
{{- define "ax.runsOperator" -}}{{ if and .Values.operator.enabled (ne .Values.multiCluster.role "member") }}true{{ end }}{{- end -}}
{{- define "ax.operatorName" -}}{{ include "ax.fullname" . }}-operator{{- end -}}
{{- define "ax.dnsName" -}}{{ include "ax.fullname" . }}-dns{{- end -}}
{{- define "ax.geoSuggestName" -}}{{ include "ax.fullname" . }}-geo-suggest{{- end -}}
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
{{- if $dns.redirector.enabled }}
redirect-listen: {{ printf "0.0.0.0:%v" $dns.redirector.port | quote }}
{{- if $dns.redirector.trustForwardedFor }}
redirect-trust-xff: true
{{- end }}
{{- end }}
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
rrl-sample: {{ $dns.rrl.sample }}
{{- else }}
no-rrl: true
{{- end }}
{{- if or $geo.databases $geo.asnDatabases $geo.ipdbDatabases $geo.ip2regionDatabases }}
{{ include "ax.geoSchemaOption" . }}
geo-reload-interval: {{ $geo.reloadInterval }}
geo-copy-dir: /var/cache/ax/geo
{{- include "ax.geoFileOptions" . }}
{{- end }}
{{- with $dns.zones }}
zones:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* The geo database options of dns.geo that ax-dns and axctl both take (the one list of
them), as a map of flag name to value, the form of ax-dns's config file: the schema, the
files in the geo volume, field overrides, cities and precedence. Empty without any file.
ax.dnsConfigFile puts its own geo options between the two parts below. */}}
{{- define "ax.geoOptions" -}}
{{- $geo := .Values.dns.geo -}}
{{- if or $geo.databases $geo.asnDatabases $geo.ipdbDatabases $geo.ip2regionDatabases -}}
{{ include "ax.geoSchemaOption" . }}
{{- include "ax.geoFileOptions" . }}
{{- end -}}
{{- end -}}

{{/* ax.geoOptions, part 1: the schema. */}}
{{- define "ax.geoSchemaOption" -}}
geo-schema: {{ .Values.dns.geo.schema }}
{{- end -}}

{{/* ax.geoOptions, part 2: the files and field settings, each line after a newline. */}}
{{- define "ax.geoFileOptions" -}}
{{- $geo := .Values.dns.geo -}}
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
{{- end -}}

{{/* ax.geoOptions as command-line words, one list item each (axctl: "--flag" "value",
a flag repeated per list entry, geo-cities a switch), in flag-name order. */}}
{{- define "ax.geoArgs" -}}
{{- range $flag, $value := fromYaml (include "ax.geoOptions" .) }}
{{- if kindIs "slice" $value }}
{{- range $value }}
- --{{ $flag }}
- {{ . | quote }}
{{- end }}
{{- else if kindIs "bool" $value }}
{{- if $value }}
- --{{ $flag }}
{{- end }}
{{- else }}
- --{{ $flag }}
- {{ $value | quote }}
{{- end }}
{{- end }}
{{- end -}}

{{/* The geo volume of dns.geo.source (none: nothing), as a pod's volumes list item. */}}
{{- define "ax.geoVolume" -}}
{{- $geo := .Values.dns.geo -}}
{{- if eq $geo.source "persistentVolumeClaim" -}}
- name: geo
  persistentVolumeClaim: {claimName: {{ required "dns.geo.persistentVolumeClaim.claimName is required with source persistentVolumeClaim" $geo.persistentVolumeClaim.claimName }}, readOnly: true}
{{- else if eq $geo.source "configMap" -}}
- name: geo
  configMap: {name: {{ required "dns.geo.configMap.name is required with source configMap" $geo.configMap.name }}}
{{- else if eq $geo.source "hostPath" -}}
- name: geo
  hostPath: {path: {{ required "dns.geo.hostPath.path is required with source hostPath" $geo.hostPath.path }}, type: Directory}
{{- else if eq $geo.source "download" -}}
- name: geo
  emptyDir: {sizeLimit: {{ $geo.download.sizeLimit }}}
{{- end -}}
{{- end -}}

{{/* With dns.geo.source download: the initContainer that fetches dns.geo.download.files
into the geo volume, each checked against its pinned sha256, as a containers list item. */}}
{{- define "ax.geoDownloadContainer" -}}
{{- $geo := .Values.dns.geo -}}
- name: geo-download
  image: {{ printf "%s:%s" $geo.download.image.repository $geo.download.image.tag | quote }}
  imagePullPolicy: {{ $geo.download.image.pullPolicy }}
  command:
    - sh
    - -c
    - |
      set -eu
      cd {{ $geo.mountPath }}
      while [ "$#" -gt 0 ]; do
        url=$1 file=$2 sha256=$3; shift 3
        curl -fsSL --retry 3 -o "$file.download" "$url"
        # The bytes fetched must be the ones pinned: a mirror or a proxy
        # cannot hand every pod another database.
        if ! echo "$sha256  $file.download" | sha256sum -c - >/dev/null 2>&1; then
          echo "geo-download: $url does not have sha256 $sha256" >&2
          rm -f "$file.download"
          exit 1
        fi
        case "$url" in
          *.gz) gunzip -c "$file.download" > "$file.part"; rm "$file.download" ;;
          *) mv "$file.download" "$file.part" ;;
        esac
        mv "$file.part" "$file"
        echo "fetched $file from $url (sha256 $sha256)"
      done
    - geo-download
    {{- range $geo.download.files }}
    - {{ .url | quote }}
    - {{ .file | quote }}
    - {{ .sha256 | quote }}
    {{- end }}
  volumeMounts:
    - {name: geo, mountPath: {{ $geo.mountPath }}}
  securityContext:
    {{- include "ax.containerSecurityContext" list | nindent 4 }}
  resources:
    {{- toYaml $geo.download.resources | nindent 4 }}
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
