{{- define "nim-library.deployment" -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-nim
spec:
  selector:
    matchLabels: {app: nim}
  template:
    metadata:
      labels: {app: nim}
    spec:
      containers:
        - name: nim
          image: {{ include "nim-library.image" . }}
          ports:
            - containerPort: 8000
          {{- with .Values.resources }}
          resources:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          volumeMounts:
            - name: cache
              mountPath: /opt/nim/.cache
      volumes:
        - name: cache
          emptyDir: {}
{{- end }}

{{- define "nim-library.image" -}}
{{ required "image.repository is required" .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}
