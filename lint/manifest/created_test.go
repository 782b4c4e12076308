package manifest

import (
	"slices"
	"testing"
)

// TestFindCreated: the Secrets the creators' controllers create, by name,
// namespace and keys, and the objects that create none.
func TestFindCreated(t *testing.T) {
	tests := []struct {
		name, source    string
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
`, "serving", "api-tls", "api-cert",
			[]string{"ca.crt", "key.der", "keystore.p12", "tls-combined.pem", "tls.crt", "tls.key", "truststore.p12"}, false},
		{"Certificate: not in another namespace", `
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: api-cert, namespace: ingress}
spec: {secretName: api-tls}
`, "serving", "api-tls", "", nil, false},
		{"Certificate: written without a namespace, in any", `
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: api-cert}
spec: {secretName: api-tls}
`, "serving", "api-tls", "api-cert", []string{"ca.crt", "tls.crt", "tls.key"}, false},
		{"a Certificate of another group creates nothing", `
apiVersion: acm.services.k8s.aws/v1alpha1
kind: Certificate
metadata: {name: api-cert}
spec: {secretName: api-tls}
`, "", "api-tls", "", nil, false},
		{"ExternalSecret: named after itself, keys of spec.data", `
apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata: {name: db}
spec:
  data:
    - {secretKey: username, remoteRef: {key: db, property: user}}
    - {secretKey: password, remoteRef: {key: db, property: password}}
`, "", "db", "db", []string{"password", "username"}, false},
		{"ExternalSecret: spec.target.name, any key with dataFrom", `
apiVersion: external-secrets.io/v1beta1
kind: ExternalSecret
metadata: {name: db}
spec:
  target: {name: db-credentials}
  dataFrom: [{extract: {key: db}}]
`, "", "db-credentials", "db", nil, true},
		{"ExternalSecret: any key with a target template", `
apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata: {name: db}
spec:
  target:
    template: {data: {url: "postgres://{{ .user }}@db"}}
  data: [{secretKey: user, remoteRef: {key: db}}]
`, "", "db", "db", nil, true},
		{"ExternalSecret: creationPolicy None creates nothing", `
apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata: {name: db}
spec:
  target: {creationPolicy: None}
`, "", "db", "", nil, false},
		{"ExternalSecret: a version outside the table creates nothing", `
apiVersion: external-secrets.io/v1alpha2
kind: ExternalSecret
metadata: {name: db}
spec: {}
`, "", "db", "", nil, false},
		{"ClusterExternalSecret: spec.externalSecretName, in any namespace", `
apiVersion: external-secrets.io/v1beta1
kind: ClusterExternalSecret
metadata: {name: registry}
spec:
  externalSecretName: registry-pull
  namespaceSelector: {matchLabels: {pull: "true"}}
  externalSecretSpec:
    data: [{secretKey: token, remoteRef: {key: registry}}]
`, "team-a", "registry-pull", "registry", []string{"token"}, false},
		{"ClusterExternalSecret: its own name by default", `
apiVersion: external-secrets.io/v1
kind: ClusterExternalSecret
metadata: {name: registry}
spec:
  externalSecretSpec:
    data: [{secretKey: token, remoteRef: {key: registry}}]
`, "team-b", "registry", "registry", []string{"token"}, false},
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
`, "serving", "signing", "signing", []string{"private.key", "public.key"}, false},
		{"SealedSecret: not under its template's name", `
apiVersion: bitnami.com/v1alpha1
kind: SealedSecret
metadata: {name: signing}
spec:
  encryptedData: {private.key: AgB}
  template: {metadata: {name: renamed}}
`, "", "renamed", "", nil, false},
		{"SealedSecret: the deprecated sealed data holds any key", `
apiVersion: bitnami.com/v1alpha1
kind: SealedSecret
metadata: {name: legacy}
spec: {data: AgBy3i4O}
`, "", "legacy", "legacy", nil, true},
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
			created := set.FindCreated("Secret", test.namespace, test.find)
			switch {
			case test.by == "" && created != nil:
				t.Fatalf("found Secret %q created by %s, want none", test.find, created.By.ID())
			case test.by == "":
				return
			case created == nil:
				t.Fatalf("no Secret %q created, want one by %s", test.find, test.by)
			}
			if created.By.Name != test.by || !slices.Equal(created.Keys, test.keys) || created.AnyKey != test.anyKey {
				t.Errorf("Secret %q: created by %s with keys %q (any key: %t), want by %s with %q (any key: %t)",
					test.find, created.By.Name, created.Keys, created.AnyKey, test.by, test.keys, test.anyKey)
			}
		})
	}
}
