{{- define "required.image" -}}
{{ required "image is required" .Values.image }}
{{- end }}

{{- define "required.proxyImage" -}}
{{- $image := required "proxyImage is required" .Values.proxyImage -}}
{{- $image -}}
{{- end }}
