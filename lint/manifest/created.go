package manifest

import (
	"slices"
	"sort"
	"strings"
	"unicode"
)

// Created is an object a controller creates for an object of the linted
// files: the Secret cert-manager issues a Certificate into, the one an
// ExternalSecret syncs, the ConfigMap trust-manager syncs a Bundle into,
// the PersistentVolumeClaim the NIM operator makes for a NIMCache.
// The files define it, though none of them is it.
type Created struct {
	Kind string
	Name string
	// Namespace is the creator's: "" when the creator is written without
	// one, which `kubectl apply -n` places anywhere.
	Namespace string
	// AnyNamespace: it is created in every namespace a selector picks
	// (ClusterExternalSecret, Bundle).
	AnyNamespace bool
	// Keys are its data keys, sorted. AnyKey: the creator does not say
	// them all (keys fetched from a store at run time, a template).
	Keys   []string
	AnyKey bool
	// By is the object whose controller creates it.
	By *Object
}

// HasKey reports whether the created object holds key, as far as its
// creator tells.
func (c *Created) HasKey(key string) bool { return c.AnyKey || slices.Contains(c.Keys, key) }

// creator is a kind whose controller creates objects of other kinds.
type creator struct {
	group    string
	versions []string
	kind     string
	creates  func(*Object) []*Created
}

// creators are the kinds of the linted files that make a controller create
// ConfigMaps or Secrets, as their projects document them.
var creators = []creator{
	// cert-manager issues a Certificate into the Secret spec.secretName, in
	// the Certificate's namespace, with keys tls.crt, tls.key and ca.crt,
	// plus key.der and tls-combined.pem for spec.additionalOutputFormats and
	// keystore.jks/truststore.jks, keystore.p12/truststore.p12 for
	// spec.keystores: https://cert-manager.io/docs/usage/certificate/
	{"cert-manager.io", []string{"v1"}, "Certificate", certificateSecret},
	// External Secrets Operator syncs an ExternalSecret into the Secret
	// spec.target.name (default: the ExternalSecret's name) with the keys
	// spec.data[].secretKey; spec.dataFrom and spec.target.template add keys
	// known only once the store is read, and creationPolicy Merge or None
	// creates no Secret: https://external-secrets.io/latest/api/externalsecret/,
	// https://external-secrets.io/latest/guides/ownership-deletion-policy/
	{"external-secrets.io", []string{"v1beta1", "v1"}, "ExternalSecret", externalSecretSecret},
	// A ClusterExternalSecret creates the ExternalSecret
	// spec.externalSecretName (default: its own name) of
	// spec.externalSecretSpec in each namespace its selectors pick:
	// https://external-secrets.io/latest/api/clusterexternalsecret/
	{"external-secrets.io", []string{"v1beta1", "v1"}, "ClusterExternalSecret", clusterExternalSecretSecret},
	// The Sealed Secrets controller unseals a SealedSecret into a Secret of
	// its own name and namespace (it overrides spec.template.metadata.name)
	// with the keys of spec.encryptedData and spec.template.data, a null
	// template key removing one:
	// https://github.com/bitnami-labs/sealed-secrets#sealedsecrets-as-templates-for-secrets
	{"bitnami.com", []string{"v1alpha1"}, "SealedSecret", sealedSecretSecret},
	// trust-manager syncs a Bundle into a ConfigMap (spec.target.configMap)
	// and a Secret (spec.target.secret) of the Bundle's own name in every
	// namespace spec.target.namespaceSelector picks (all without one), with
	// the PEM bundle under the target's key and the trust stores of
	// spec.target.additionalFormats under jks.key and pkcs12.key:
	// https://cert-manager.io/docs/trust/trust-manager/, BundleTarget in
	// pkg/apis/trust/v1alpha1/types_bundle.go and the target names in
	// pkg/bundle/bundle.go of github.com/cert-manager/trust-manager.
	{"trust.cert-manager.io", []string{"v1alpha1"}, "Bundle", bundleTargets},
	// KubeRay (1.5.1 and later) creates the auth token Secret of a
	// RayCluster with spec.authOptions (mode "token", the default), under
	// the key auth_token and named after the cluster (the last 50
	// characters of its name, a leading digit made "r"), unless
	// authOptions.secretName names one of the user's or enableK8sTokenAuth
	// leaves auth to the API server (both since 1.6):
	// https://docs.ray.io/en/latest/cluster/kubernetes/user-guides/kuberay-auth.html,
	// reconcileAuthSecret in
	// ray-operator/controllers/ray/raycluster_controller.go, CheckName in
	// ray-operator/controllers/ray/utils/util.go and AuthOptions in
	// ray-operator/apis/ray/v1/raycluster_types.go of
	// github.com/ray-project/kuberay.
	{"ray.io", []string{"v1"}, "RayCluster", rayClusterAuthSecret},
	// KServe serves an LLMInferenceService's pods with a self-signed
	// certificate it keeps in the Secret <name>-kserve-self-signed-certs,
	// which the LLMInferenceServiceConfig presets mount, with tls.crt,
	// tls.key and (since v0.18) ca.crt: reconcileSelfSignedCertsSecret in
	// pkg/controller/v1alpha2/llmisvc/workload_tls_self_signed.go of
	// github.com/kserve/kserve.
	{"serving.kserve.io", []string{"v1alpha1", "v1alpha2"}, "LLMInferenceService", llmInferenceServiceCertSecret},
	// Seldon Core 2's SeldonRuntime writes the configuration of the Servers
	// of its namespace into ConfigMaps the ServerConfigs' pods mount and
	// read env from: seldon-agent (agent.yaml), seldon-kafka (kafka.json),
	// seldon-tracing (tracing.json and the OTEL_ variables) and, since
	// 2.10, seldon-scaling (scaling.yaml):
	// operator/controllers/reconcilers/seldon/configmap_reconciler.go of
	// github.com/SeldonIO/seldon-core (branch v2).
	{"mlops.seldon.io", []string{"v1alpha1"}, "SeldonRuntime", seldonRuntimeConfigMaps},
	// The NIM operator creates the PersistentVolumeClaim of a NIMCache or a
	// NIMService whose spec.storage.pvc.create is true, named
	// spec.storage.pvc.name or else <name>-pvc (GetPVCName in
	// api/apps/v1alpha1/nimcache_types.go and nimservice_types.go of
	// github.com/NVIDIA/k8s-nim-operator).
	{"apps.nvidia.com", []string{"v1alpha1"}, "NIMCache", nimClaim},
	{"apps.nvidia.com", []string{"v1alpha1"}, "NIMService", nimClaim},
	// The vLLM production-stack operator makes a VLLMRuntime's claim of its
	// own name (spec.storageConfig.enabled) and the ConfigMap
	// <name>-chat-template with the key chatTemplate (spec.model.chatTemplate):
	// pvcForVLLMRuntime and configMapForVLLMRuntime in
	// operator/internal/controller/vllmruntime_controller.go of
	// github.com/vllm-project/production-stack.
	{"production-stack.vllm.ai", []string{"v1alpha1"}, "VLLMRuntime", vllmRuntimeObjects},
}

// createdKey files a created object by kind and name.
func createdKey(kind, name string) string { return kind + "/" + name }

// FindCreated returns an object a controller creates for an object of the
// set, of a kind with a name in a namespace, or nil. Namespaces match as
// in Find.
func (s *Set) FindCreated(kind, namespace, name string) *Created {
	index := s.Derived("manifest: created objects", func() any { return s.created() }).(map[string][]*Created)
	var found *Created
	for _, c := range index[createdKey(kind, name)] {
		if c.Namespace == namespace && !c.AnyNamespace {
			return c
		}
		if found == nil && (c.AnyNamespace || c.Namespace == "" || namespace == "") {
			found = c
		}
	}
	return found
}

// createsObjects says a creator of the table is of the object's kind.
func createsObjects(o *Object) bool {
	return slices.ContainsFunc(creators, func(c creator) bool { return c.kind == o.Kind })
}

// created lists the objects the set's creators create, by createdKey.
func (s *Set) created() map[string][]*Created {
	index := map[string][]*Created{}
	for _, creator := range creators {
		for _, object := range s.OfKinds(creator.kind) {
			group, version, _ := strings.Cut(object.APIVersion, "/")
			if group != creator.group || !slices.Contains(creator.versions, version) {
				continue
			}
			for _, c := range creator.creates(object) {
				if c.Name == "" {
					continue
				}
				c.By = object
				if !c.AnyNamespace {
					c.Namespace = object.Namespace
				}
				sort.Strings(c.Keys)
				key := createdKey(c.Kind, c.Name)
				index[key] = append(index[key], c)
			}
		}
	}
	return index
}

func certificateSecret(o *Object) []*Created {
	secret := &Created{Kind: "Secret", Name: stringAt(o, "spec", "secretName"), Keys: []string{"tls.crt", "tls.key", "ca.crt"}}
	formats, _ := o.Lookup("spec", "additionalOutputFormats")
	for _, format := range asList(formats) {
		switch stringIn(format, "type") {
		case "DER":
			secret.Keys = append(secret.Keys, "key.der")
		case "CombinedPEM":
			secret.Keys = append(secret.Keys, "tls-combined.pem")
		}
	}
	for store, suffix := range map[string]string{"jks": ".jks", "pkcs12": ".p12"} {
		if create, _ := o.Lookup("spec", "keystores", store, "create"); create == true {
			secret.Keys = append(secret.Keys, "keystore"+suffix, "truststore"+suffix)
		}
	}
	return []*Created{secret}
}

func externalSecretSecret(o *Object) []*Created {
	spec, _ := o.Lookup("spec")
	return externalSecretSpecSecret(spec, o.Name)
}

func clusterExternalSecretSecret(o *Object) []*Created {
	name := stringAt(o, "spec", "externalSecretName")
	if name == "" {
		name = o.Name
	}
	spec, _ := o.Lookup("spec", "externalSecretSpec")
	created := externalSecretSpecSecret(spec, name)
	for _, c := range created {
		c.AnyNamespace = true
	}
	return created
}

// externalSecretSpecSecret is the Secret an ExternalSecret of that spec and
// name syncs into.
func externalSecretSpecSecret(spec any, externalSecret string) []*Created {
	target, _ := asMap(spec)["target"].(map[string]any)
	switch stringIn(target, "creationPolicy") {
	case "Merge", "None": // the Secret must come from elsewhere
		return nil
	}
	secret := &Created{Kind: "Secret", Name: stringIn(target, "name")}
	if secret.Name == "" {
		secret.Name = externalSecret
	}
	for _, item := range asList(asMap(spec)["data"]) {
		if key := stringIn(item, "secretKey"); key != "" {
			secret.Keys = append(secret.Keys, key)
		}
	}
	secret.AnyKey = len(asList(asMap(spec)["dataFrom"])) > 0
	if target["template"] != nil { // it makes the keys, from those fetched or not
		secret.Keys, secret.AnyKey = nil, true
	}
	return []*Created{secret}
}

func sealedSecretSecret(o *Object) []*Created {
	secret := &Created{Kind: "Secret", Name: o.Name}
	if legacy, _ := o.Lookup("spec", "data"); legacy != nil {
		secret.AnyKey = true // the deprecated single sealed Secret, keys and all
	}
	encrypted, _ := o.Lookup("spec", "encryptedData")
	for key := range asMap(encrypted) {
		secret.Keys = append(secret.Keys, key)
	}
	templated, _ := o.Lookup("spec", "template", "data")
	for key, value := range asMap(templated) {
		if value == nil {
			secret.Keys = slices.DeleteFunc(secret.Keys, func(k string) bool { return k == key })
		} else if !slices.Contains(secret.Keys, key) {
			secret.Keys = append(secret.Keys, key)
		}
	}
	return []*Created{secret}
}

func bundleTargets(o *Object) []*Created {
	var formats []string
	for _, format := range []string{"jks", "pkcs12"} {
		if key := stringAt(o, "spec", "target", "additionalFormats", format, "key"); key != "" {
			formats = append(formats, key)
		}
	}
	var created []*Created
	for _, target := range []struct{ kind, field string }{{"ConfigMap", "configMap"}, {"Secret", "secret"}} {
		key := stringAt(o, "spec", "target", target.field, "key")
		if key == "" { // no target of that kind (a key is required)
			continue
		}
		created = append(created, &Created{Kind: target.kind, Name: o.Name, AnyNamespace: true,
			Keys: append([]string{key}, formats...)})
	}
	return created
}

// rayClusterNameLimit is how much of a RayCluster's name KubeRay keeps in
// the names it derives from it, dropping the front (CheckName).
const rayClusterNameLimit = 50

func rayClusterAuthSecret(o *Object) []*Created {
	auth, ok := o.Lookup("spec", "authOptions")
	if !ok || auth == nil || stringIn(auth, "mode") == "disabled" || stringIn(auth, "secretName") != "" ||
		asMap(auth)["enableK8sTokenAuth"] == true {
		return nil
	}
	name := o.Name
	if len(name) > rayClusterNameLimit {
		name = name[len(name)-rayClusterNameLimit:]
	}
	if name != "" && !unicode.IsLetter(rune(name[0])) {
		name = "r" + name[1:]
	}
	return []*Created{{Kind: "Secret", Name: name, Keys: []string{"auth_token"}}}
}

// llmInferenceServiceCertSuffix ends the name of the Secret KServe keeps an
// LLMInferenceService's self-signed certificate in.
const llmInferenceServiceCertSuffix = "-kserve-self-signed-certs"

func llmInferenceServiceCertSecret(o *Object) []*Created {
	name := o.Name + llmInferenceServiceCertSuffix
	if len(name) > 63 { // knative's kmeta.ChildName hashes it
		return nil
	}
	return []*Created{{Kind: "Secret", Name: name, Keys: []string{"tls.crt", "tls.key", "ca.crt"}}}
}

func seldonRuntimeConfigMaps(*Object) []*Created {
	return []*Created{
		{Kind: "ConfigMap", Name: "seldon-agent", Keys: []string{"agent.yaml"}},
		{Kind: "ConfigMap", Name: "seldon-kafka", Keys: []string{"kafka.json"}},
		{Kind: "ConfigMap", Name: "seldon-tracing", Keys: []string{"tracing.json", "OTEL_JAVAAGENT_ENABLED",
			"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL"}},
		{Kind: "ConfigMap", Name: "seldon-scaling", Keys: []string{"scaling.yaml"}},
	}
}

func nimClaim(o *Object) []*Created {
	if create, _ := o.Lookup("spec", "storage", "pvc", "create"); create != true {
		return nil
	}
	name := stringAt(o, "spec", "storage", "pvc", "name")
	if name == "" {
		name = o.Name + "-pvc"
	}
	return []*Created{{Kind: "PersistentVolumeClaim", Name: name}}
}

func vllmRuntimeObjects(o *Object) []*Created {
	var created []*Created
	if enabled, _ := o.Lookup("spec", "storageConfig", "enabled"); enabled == true {
		created = append(created, &Created{Kind: "PersistentVolumeClaim", Name: o.Name})
	}
	if stringAt(o, "spec", "model", "chatTemplate") != "" {
		created = append(created, &Created{Kind: "ConfigMap", Name: o.Name + "-chat-template", Keys: []string{"chatTemplate"}})
	}
	return created
}

// stringAt is the string at a path of map keys of the object, "" when
// there is none.
func stringAt(o *Object, keys ...string) string {
	value, _ := o.Lookup(keys...)
	s, _ := value.(string)
	return s
}

// stringIn is the string field key of a mapping, "" when there is none.
func stringIn(mapping any, key string) string {
	s, _ := asMap(mapping)[key].(string)
	return s
}

func asMap(value any) map[string]any {
	m, _ := value.(map[string]any)
	return m
}

func asList(value any) []any {
	l, _ := value.([]any)
	return l
}
