{{- define "stack.probes" -}}
{{- if .Values.probes.readiness }}
readinessProbe:
  httpGet:
    path: /health
    port: 8000
{{- end }}

{{- end }}

{{- define "stack.resources" -}}
requests:
  cpu: "4"
  nvidia.com/gpu: 1
{{- if .limitMemory }}
limits:
  memory: {{ .limitMemory }}
  nvidia.com/gpu: 1
{{- else }}
limits:
  nvidia.com/gpu: 1
{{- end }}
{{- end }}

{{- define "stack.gpuWarning" -}}
{{- if not .limitMemory }}
{{- end }}
{{- end }}
