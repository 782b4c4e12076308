package manifest

import (
	"slices"
	"strings"
	"testing"
)

// TestFindCreated: the ConfigMaps and Secrets the creators' controllers
// create, by kind, name, namespace and keys, and the objects that create
// none.
func TestFindCreated(t *testing.T) {
	tests := []struct {
		name, source string
		// find is the kind/name looked up in namespace.
		namespace, find string
		// by is the creator found, "" for none.
		by     string
		keys   []string
		anyKey bool
	}{
		{"Certificate: spec.secretName with the TLS keys and the output formats asked for", `
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: api-cert, namespace: serving}
spec:
  secretName: api-tls
  additionalOutputFormats: [{type: DER}, {type: CombinedPEM}]
  keystores: {pkcs12: {create: true}, jks: {create: false}}
`, "serving", "Secret/api-tls", "api-cert",
			[]string{"ca.crt", "key.der", "keystore.p12", "tls-combined.pem", "tls.crt", "tls.key", "truststore.p12"}, false},
		{"Certificate: not in another namespace", `
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: api-cert, namespace: ingress}
spec: {secretName: api-tls}
`, "serving", "Secret/api-tls", "", nil, false},
		{"Certificate: written without a namespace, in any", `
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: api-cert}
spec: {secretName: api-tls}
`, "serving", "Secret/api-tls", "api-cert", []string{"ca.crt", "tls.crt", "tls.key"}, false},
		{"a Certificate of another group creates nothing", `
apiVersion: acm.services.k8s.aws/v1alpha1
kind: Certificate
metadata: {name: api-cert}
spec: {secretName: api-tls}
`, "", "Secret/api-tls", "", nil, false},
		{"ExternalSecret: named after itself, keys of spec.data", `
apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata: {name: db}
spec:
  data:
    - {secretKey: username, remoteRef: {key: db, property: user}}
    - {secretKey: password, remoteRef: {key: db, property: password}}
`, "", "Secret/db", "db", []string{"password", "username"}, false},
		{"ExternalSecret: spec.target.name, any key with dataFrom", `
apiVersion: external-secrets.io/v1beta1
kind: ExternalSecret
metadata: {name: db}
spec:
  target: {name: db-credentials}
  dataFrom: [{extract: {key: db}}]
`, "", "Secret/db-credentials", "db", nil, true},
		{"ExternalSecret: any key with a target template", `
apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata: {name: db}
spec:
  target:
    template: {data: {url: "postgres://{{ .user }}@db"}}
  data: [{secretKey: user, remoteRef: {key: db}}]
`, "", "Secret/db", "db", nil, true},
		{"ExternalSecret: creationPolicy None creates nothing", `
apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata: {name: db}
spec:
  target: {creationPolicy: None}
`, "", "Secret/db", "", nil, false},
		{"ExternalSecret: a version outside the table creates nothing", `
apiVersion: external-secrets.io/v1alpha2
kind: ExternalSecret
metadata: {name: db}
spec: {}
`, "", "Secret/db", "", nil, false},
		{"ClusterExternalSecret: spec.externalSecretName, in any namespace", `
apiVersion: external-secrets.io/v1beta1
kind: ClusterExternalSecret
metadata: {name: registry}
spec:
  externalSecretName: registry-pull
  namespaceSelector: {matchLabels: {pull: "true"}}
  externalSecretSpec:
    data: [{secretKey: token, remoteRef: {key: registry}}]
`, "team-a", "Secret/registry-pull", "registry", []string{"token"}, false},
		{"ClusterExternalSecret: its own name by default", `
apiVersion: external-secrets.io/v1
kind: ClusterExternalSecret
metadata: {name: registry}
spec:
  externalSecretSpec:
    data: [{secretKey: token, remoteRef: {key: registry}}]
`, "team-b", "Secret/registry", "registry", []string{"token"}, false},
		{"SealedSecret: its own name, template keys added and removed", `
apiVersion: bitnami.com/v1alpha1
kind: SealedSecret
metadata: {name: signing, namespace: serving}
spec:
  encryptedData: {private.key: AgB, passphrase: AgC}
  template:
    metadata: {name: ignored-by-the-controller}
    data:
      public.key: "{{ index . \"private.key\" }}"
      passphrase: null
`, "serving", "Secret/signing", "signing", []string{"private.key", "public.key"}, false},
		{"SealedSecret: not under its template's name", `
apiVersion: bitnami.com/v1alpha1
kind: SealedSecret
metadata: {name: signing}
spec:
  encryptedData: {private.key: AgB}
  template: {metadata: {name: renamed}}
`, "", "Secret/renamed", "", nil, false},
		{"SealedSecret: the deprecated sealed data holds any key", `
apiVersion: bitnami.com/v1alpha1
kind: SealedSecret
metadata: {name: legacy}
spec: {data: AgBy3i4O}
`, "", "Secret/legacy", "legacy", nil, true},
		{"Bundle: a ConfigMap of its name in any namespace, the trust stores' keys too", `
apiVersion: trust.cert-manager.io/v1alpha1
kind: Bundle
metadata: {name: internal-ca}
spec:
  sources: [{useDefaultCAs: true}]
  target:
    configMap: {key: ca-bundle.crt}
    additionalFormats: {pkcs12: {key: ca-bundle.p12}, jks: {key: ca-bundle.jks}}
    namespaceSelector: {matchLabels: {trust: enabled}}
`, "serving", "ConfigMap/internal-ca", "internal-ca", []string{"ca-bundle.crt", "ca-bundle.jks", "ca-bundle.p12"}, false},
		{"Bundle: a Secret only for a secret target", `
apiVersion: trust.cert-manager.io/v1alpha1
kind: Bundle
metadata: {name: internal-ca}
spec:
  sources: [{useDefaultCAs: true}]
  target: {secret: {key: ca.crt}}
`, "serving", "Secret/internal-ca", "internal-ca", []string{"ca.crt"}, false},
		{"Bundle: no ConfigMap without a configMap target", `
apiVersion: trust.cert-manager.io/v1alpha1
kind: Bundle
metadata: {name: internal-ca}
spec:
  sources: [{useDefaultCAs: true}]
  target: {secret: {key: ca.crt}}
`, "serving", "ConfigMap/internal-ca", "", nil, false},
		{"RayCluster: token auth makes a Secret of the cluster's name with auth_token", `
apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: llm, namespace: serving}
spec:
  authOptions: {mode: token}
`, "serving", "Secret/llm", "llm", []string{"auth_token"}, false},
		{"RayCluster: token is the default mode; a long name loses its front, a leading digit made r", `
apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: serving-team-7-qwen2-5-72b-instruct-cluster-with-token-authentication}
spec:
  authOptions: {}
`, "", "Secret/r-5-72b-instruct-cluster-with-token-authentication",
			"serving-team-7-qwen2-5-72b-instruct-cluster-with-token-authentication", []string{"auth_token"}, false},
		{"RayCluster: not under the long name itself", `
apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: serving-team-7-qwen2-5-72b-instruct-cluster-with-token-authentication}
spec:
  authOptions: {}
`, "", "Secret/serving-team-7-qwen2-5-72b-instruct-cluster-with-token-authentication", "", nil, false},
		{"RayCluster: no Secret with the user's own secretName", `
apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: llm}
spec:
  authOptions: {mode: token, secretName: llm-token}
`, "", "Secret/llm", "", nil, false},
		{"RayCluster: no Secret with Kubernetes token auth", `
apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: llm}
spec:
  authOptions: {enableK8sTokenAuth: true}
`, "", "Secret/llm", "", nil, false},
		{"RayCluster: no Secret without authOptions or with auth disabled", `
apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: llm}
spec:
  authOptions: {mode: disabled}
---
apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: llm-open}
spec: {}
`, "", "Secret/llm", "", nil, false},
		{"LLMInferenceService: its self-signed certificate's Secret", `
apiVersion: serving.kserve.io/v1alpha2
kind: LLMInferenceService
metadata: {name: qwen, namespace: serving}
spec:
  model: {uri: "hf://Qwen/Qwen2.5-7B-Instruct"}
`, "serving", "Secret/qwen-kserve-self-signed-certs", "qwen", []string{"ca.crt", "tls.crt", "tls.key"}, false},
		{"LLMInferenceService: a name past 63 characters is hashed, unknown", `
apiVersion: serving.kserve.io/v1alpha1
kind: LLMInferenceService
metadata: {name: an-llm-inference-service-with-a-rather-long-name}
spec: {}
`, "", "Secret/an-llm-inference-service-with-a-rather-long-name-kserve-self-signed-certs", "", nil, false},
		{"SeldonRuntime: the tracing ConfigMap of its namespace", `
apiVersion: mlops.seldon.io/v1alpha1
kind: SeldonRuntime
metadata: {name: seldon, namespace: seldon-mesh}
spec: {seldonConfig: default}
`, "seldon-mesh", "ConfigMap/seldon-tracing", "seldon",
			[]string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_JAVAAGENT_ENABLED", "tracing.json"}, false},
		{"SeldonRuntime: not in another namespace", `
apiVersion: mlops.seldon.io/v1alpha1
kind: SeldonRuntime
metadata: {name: seldon, namespace: seldon-mesh}
spec: {seldonConfig: default}
`, "models", "ConfigMap/seldon-agent", "", nil, false},
		{"NIMCache: the claim of spec.storage.pvc.create, <name>-pvc", `
apiVersion: apps.nvidia.com/v1alpha1
kind: NIMCache
metadata: {name: llama, namespace: nim}
spec: {storage: {pvc: {create: true, size: 50Gi}}}
`, "nim", "PersistentVolumeClaim/llama-pvc", "llama", nil, false},
		{"NIMService: a claim it names but does not create", `
apiVersion: apps.nvidia.com/v1alpha1
kind: NIMService
metadata: {name: llama, namespace: nim}
spec: {storage: {pvc: {name: models}}}
`, "nim", "PersistentVolumeClaim/models", "", nil, false},
		{"VLLMRuntime: its storage claim and chat template", `
apiVersion: production-stack.vllm.ai/v1alpha1
kind: VLLMRuntime
metadata: {name: llama, namespace: llm}
spec: {storageConfig: {enabled: true}, model: {modelURL: m, chatTemplate: "{{ messages }}"}}
`, "llm", "ConfigMap/llama-chat-template", "llama", []string{"chatTemplate"}, false},
	}
	for _, test := range tests {
		t.Run(test.name, func(t *testing.T) {
			file, err := Load("created.yaml", []byte(test.source))
			if err != nil {
				t.Fatal(err)
			}
			set, err := NewSet([]*File{file})
			if err != nil {
				t.Fatal(err)
			}
			kind, name, _ := strings.Cut(test.find, "/")
			created := set.FindCreated(kind, test.namespace, name)
			switch {
			case test.by == "" && created != nil:
				t.Fatalf("found %s created by %s, want none", test.find, created.By.ID())
			case test.by == "":
				return
			case created == nil:
				t.Fatalf("no %s created, want one by %s", test.find, test.by)
			}
			if created.By.Name != test.by || !slices.Equal(created.Keys, test.keys) || created.AnyKey != test.anyKey {
				t.Errorf("%s: created by %s with keys %q (any key: %t), want by %s with %q (any key: %t)",
					test.find, created.By.Name, created.Keys, created.AnyKey, test.by, test.keys, test.anyKey)
			}
		})
	}
}
