{{- define "fleet.labels" -}}
app.kubernetes.io/name: {{ .name }}
{{- end }}

{{/* The pod spec every model server runs with. */}}
{{- define "fleet.podSpec" -}}
containers:
  - name: vllm
    image: {{ .image }}
    command: ["vllm", "serve", {{ .model | quote }}]
    ports:
      - containerPort: 8000
    securityContext:
      runAsNonRoot: true
      fsGroup: 1000
    resources:
      requests: {cpu: "4", memory: {{ .memory }}, nvidia.com/gpu: 1}
      limits: {memory: {{ .memory }}, nvidia.com/gpu: 1}
    startupProbe:
      httpGet: {path: /health, port: 8000}
      periodSeconds: 10
      failureThreshold: 120
    readinessProbe:
      httpGet: {path: /health, port: 8080}
    volumeMounts:
      - {name: dshm, mountPath: /dev/shm}
volumes:
  - name: dshm
    emptyDir: {medium: Memory, sizeLimit: 2Gi}
{{- end }}
