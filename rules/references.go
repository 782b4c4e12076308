package rules

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/modellint/modellint/internal/lazyregexp"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
)

var imageTagMutable = &lint.Rule{
	ID: "MDL208", Name: "image-tag-mutable", Severity: lint.Warning,
	Artifact: lint.ArtifactManifest, Needs: []lint.Fact{lint.FactManifest}, Fixes: lint.FixSafe,
	Doc: lint.Doc{
		Summary: "An image is referenced by :latest or without a tag (warning), or by a tag without a digest (info).",
		Why: "Tags move. A pod rescheduled after a push to :latest (the tag used when none is written) runs a different " +
			"build from its siblings; a server or CUDA upgrade lands without review, a rollback redeploys the broken image, " +
			"and node caches make it depend on where the pod lands. Only a digest names the exact bytes that were tested. " +
			"References are parsed as container runtimes do: in registry:5000/img the port is not a tag. Images with " +
			"template placeholders ({{ }}, <...>, $(...)) InferenceService shorthand containers (no image of their own) " +
			"and the containers a platform injects (KServe's storage-initializer, whose image its ConfigMap names) are not checked.",
		Bad:  `image: tensorflow/serving`,
		Good: `image: tensorflow/serving:2.19.0@sha256:4ea1d5e2f0c6b05c3a0f6a8b4ad6b6b0d7c9c2e3b1f3a6f5e2d1c0b9a8f7e6d5`,
		Fix: "Pin a version tag, and for production the digest as well (`crane digest IMAGE:TAG` or `docker buildx imagetools " +
			"inspect` prints it); let a bot such as Renovate move the pin.",
		References: []string{
			"https://kubernetes.io/docs/concepts/containers/images/#image-names",
			"https://kubernetes.io/docs/concepts/configuration/overview/#container-images",
			"https://github.com/distribution/reference/blob/main/reference.go",
		},
	},
	Check: checkImageTag,
}

// imageReference is a parsed container image reference.
type imageReference struct {
	Repository string // registry and path, without tag or digest
	Tag        string
	Digest     string
}

var (
	tagPattern    = lazyregexp.New(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)
	digestPattern = lazyregexp.New(`^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[0-9a-fA-F]{32,}$`)
)

// parseImageReference splits an image reference into repository, tag and
// digest. The tag is only looked for in the last path component, so a
// registry port ("registry:5000/img") is not mistaken for one. It returns
// false for placeholders and other text that is not a reference.
func parseImageReference(image string) (imageReference, bool) {
	if image == "" || strings.ContainsAny(image, " \t{}<>$") {
		return imageReference{}, false
	}
	var ref imageReference
	name := image
	if i := strings.IndexByte(image, '@'); i >= 0 {
		name, ref.Digest = image[:i], image[i+1:]
		if !digestPattern.MatchString(ref.Digest) {
			return imageReference{}, false
		}
	}
	lastSlash := strings.LastIndexByte(name, '/')
	if i := strings.LastIndexByte(name, ':'); i > lastSlash {
		name, ref.Tag = name[:i], name[i+1:]
		if !tagPattern.MatchString(ref.Tag) {
			return imageReference{}, false
		}
	}
	if name == "" || strings.HasSuffix(name, "/") {
		return imageReference{}, false
	}
	ref.Repository = name
	return ref, true
}

func checkImageTag(pass *lint.Pass) {
	var coverage lint.Coverage
	for _, c := range pass.Workload().Containers {
		ref, ok := parseImageReference(c.Image)
		if !ok || c.PlatformWritten() {
			// The platform's config names its image, by a tag of its release.
			continue
		}
		coverage.Checked()
		path := c.Path + ".image"
		var fix *lint.Fix
		if ref.Digest == "" {
			fix = fixImageDigest(pass, c, path)
		}
		switch {
		case ref.Digest != "":
		case ref.Tag == "":
			reportFixed(pass, fix, path,
				"%s: image %q has no tag, so it runs whatever :latest points to when the node pulls it: pods can run different "+
					"builds and a rollback does not restore the old one; pin a version tag and its digest (%s:TAG@sha256:…)",
				c.Label(), c.Image, ref.Repository)
		case ref.Tag == "latest":
			reportFixed(pass, fix, path,
				"%s: image %q uses the tag latest, which moves with every push: pods can run different builds and a rollback "+
					"does not restore the old one; pin a version tag and its digest (%s:TAG@sha256:…)",
				c.Label(), c.Image, ref.Repository)
		default:
			pass.Report(lint.Diagnostic{Severity: lint.Info, Path: path, Fix: fix, Message: fmt.Sprintf("%s: image %q is pinned by tag only, and a tag can be moved to another build; add the digest (%s@sha256:…) "+
				"so every node runs the image that was tested", c.Label(), c.Image, c.Image)})
		}
	}
	coverage.SkipIfNone(pass, "no container names an image")
}

// fixImageDigest pins the image to the digest its registry resolved the
// reference to in this run (the index's, so every platform still pulls):
// the image that was linted is the image that runs.
func fixImageDigest(pass *lint.Pass, c *manifest.Container, path string) *lint.Fix {
	img := pass.Target.Images[c.Image]
	if img == nil || img.Resolved == "" || !fixable(c) {
		return nil
	}
	pinned := c.Image + "@" + img.Resolved
	edit, ok := pass.Workload().Object.ReplaceScalar(path, sameText(c.Image), pinned)
	var edits []manifest.Edit
	if ok {
		edits = append(edits, edit)
	}
	return lint.EditFix("pin the image to the digest its registry serves for it now, "+img.Resolved, "image: "+pinned+"\n", edits...)
}

var configRefMissing = &lint.Rule{
	ID: "MDL209", Name: "config-ref-missing", Severity: lint.Error,
	Artifact: lint.ArtifactManifest, Needs: []lint.Fact{lint.FactManifest},
	Doc: lint.Doc{
		Summary: "A ConfigMap, Secret, key or env var the pod refers to does not exist.",
		Why: "An env var from a missing ConfigMap or Secret (or a missing key of one) keeps the container in " +
			"CreateContainerConfigError; a missing configMap or secret volume keeps the pod in ContainerCreating " +
			"(\"MountVolume.SetUp failed\"). A $(VAR) in command or args that names no env var of the container is not " +
			"expanded: the server gets the literal text \"$(VAR)\" as a model name or path and exits. A Seldon Core v2 " +
			"Model's spec.secretName names the Secret of the rclone config its Server's agent downloads storageUri with: " +
			"when it is missing, the agent fails to load the model. " +
			"Objects are looked up among the linted files (by namespace when both sides name one), counting the ConfigMaps and Secrets " +
			"controllers create for objects of the files: a cert-manager Certificate's spec.secretName (keys tls.crt, " +
			"tls.key, ca.crt and those of its additional output formats and keystores), an External Secrets ExternalSecret's " +
			"spec.target.name or else its own name (keys of spec.data, any key with dataFrom or a target template, no Secret " +
			"with creationPolicy Merge or None), a ClusterExternalSecret's in every namespace, and a Bitnami SealedSecret's " +
			"own name (keys of encryptedData and template.data); and the objects of the serving stack's controllers: the " +
			"ConfigMap (spec.target.configMap) and Secret (spec.target.secret) a trust-manager Bundle is synced into under " +
			"its own name in every namespace, the auth_token Secret KubeRay creates under a RayCluster's name for " +
			"spec.authOptions without a secretName, an LLMInferenceService's <name>-kserve-self-signed-certs (tls.crt, " +
			"tls.key, ca.crt), and the seldon-agent, seldon-kafka, seldon-tracing and seldon-scaling ConfigMaps a Seldon " +
			"Core 2 SeldonRuntime writes in its namespace. Kustomize overlays are linted as built, generated names " +
			"with their hash suffixes; a reference kustomize left as written (a field of a kind it does not know, such as " +
			"an InferenceService's containers) is reported with the name the generator gave. References marked optional " +
			"and objects listed under external: in .modellint.yaml are not reported. A missing Secret is a warning, since " +
			"Secrets are usually created outside the repository; a missing imagePullSecrets entry is a note, since the " +
			"kubelet then pulls without it and only a registry that wants credentials refuses the pull. A missing object " +
			"named after the release of a Helm chart modellint rendered is a warning too, since the rest of the release " +
			"may create it. A name that repeats one the chart " +
			"gives after its release, with another release's name in front (`ray-cluster-config` for the chart's " +
			"`{{ .Release.Name }}-config`), is a warning that names that release: it holds only under that release name. " +
			"$$(VAR) is an escape and is not reported; in shell scripts (sh -c) only UPPER_CASE names are checked, " +
			"since $(cmd) there is command substitution. Env vars listed under requiredEnv: in .modellint.yaml must be set " +
			"on every model-server container.",
		Bad: `env:
  - name: MODEL_NAME
    valueFrom:
      configMapKeyRef: {name: serving-config, key: model}
args: ["--model_name=$(MODEL_NAME)", "--model_base_path=$(MODEL_DIR)"]`,
		Good: `env:
  - name: MODEL_NAME
    valueFrom:
      configMapKeyRef: {name: serving-config, key: model}
  - name: MODEL_DIR
    value: /models/resnet
args: ["--model_name=$(MODEL_NAME)", "--model_base_path=$(MODEL_DIR)"]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: serving-config}
data: {model: resnet}`,
		Fix: "Add the ConfigMap or Secret to the linted manifests, fix the name or key, mark the reference optional: true " +
			"if the pod can run without it, or list objects created elsewhere under external: in .modellint.yaml. For a " +
			"Helm chart, lint with --release-name set to the release you install.",
		References: []string{
			"https://kubernetes.io/docs/tasks/configure-pod-container/configure-pod-configmap/",
			"https://kubernetes.io/docs/concepts/configuration/secret/#using-secrets-as-environment-variables",
			"https://kubernetes.io/docs/tasks/inject-data-application/define-interdependent-environment-variables/",
			"https://cert-manager.io/docs/usage/certificate/",
			"https://external-secrets.io/latest/api/externalsecret/",
			"https://github.com/bitnami-labs/sealed-secrets#sealedsecrets-as-templates-for-secrets",
			"https://cert-manager.io/docs/trust/trust-manager/",
			"https://docs.ray.io/en/latest/cluster/kubernetes/user-guides/kuberay-auth.html",
			"https://kubectl.docs.kubernetes.io/references/kustomize/kustomization/configmapgenerator/",
		},
	},
	Check: checkConfigRefs,
}

// configRef is one reference from the pod to a ConfigMap or Secret.
type configRef struct {
	kind     string // ConfigMap or Secret
	name     string
	key      string // "" when the whole object is used
	optional bool
	path     string // field path of the name
	keyPath  string // field path of the key
	what     string // how it is used, for messages
	// pull: an imagePullSecrets entry, which the kubelet goes on without,
	// so a missing one is a note.
	pull bool
	// effect is what a missing object does, "" for a pod's reference (the
	// container or the pod does not start).
	effect string
}

func checkConfigRefs(pass *lint.Pass) {
	w := pass.Workload()
	for _, ref := range podConfigRefs(w) {
		checkConfigRef(pass, ref)
	}
	if model := w.SeldonModel; model != nil && model.SecretName != "" {
		// Seldon's agent reads it through the API when it loads the model
		// (StorageConfig.StorageSecretName): no pod refers to it.
		checkConfigRef(pass, configRef{kind: "Secret", name: model.SecretName, path: model.SecretPath,
			what:   "the Model's secretName (the rclone config Seldon's agent downloads storageUri with)",
			effect: "the agent fails to load the model and the Model never becomes Ready"})
	}
	for _, c := range w.Containers {
		checkVarReferences(pass, c)
	}
	if required := pass.Config.RequiredEnv; len(required) > 0 {
		for _, c := range w.Containers {
			if !c.Serving() || c.FromServingRuntime {
				continue
			}
			defined, complete := definedEnv(pass, c)
			for _, name := range required {
				if defined[name] || !complete {
					continue
				}
				pass.Reportf(c.Path+".env",
					"%s does not set %s, which .modellint.yaml lists as required on every model server (requiredEnv); add it to env",
					describe(c), name)
			}
		}
	}
}

func checkConfigRef(pass *lint.Pass, ref configRef) {
	w := pass.Workload()
	namespace := w.Object.Namespace
	if ref.optional || pass.Config.IsExternal(ref.kind, namespace, ref.name) {
		return
	}
	object := pass.Objects.Find(ref.kind, namespace, ref.name)
	if object == nil {
		if created := pass.Objects.FindCreated(ref.kind, namespace, ref.name); created != nil {
			checkCreatedKey(pass, ref, created)
			return
		}
		reportMissing(pass, ref)
		return
	}
	if ref.key == "" {
		return
	}
	keys := objectKeys(object)
	if keys[ref.key] {
		return
	}
	neverReady(pass).Reportf(ref.keyPath,
		"%s reads key %q of %s %q, which has no such key (it has %s): the container stays in CreateContainerConfigError; "+
			"fix the key or add it to the %s", ref.what, ref.key, ref.kind, ref.name, describeKeys(keys), ref.kind)
}

// reportMissing reports a reference to an object that is not in the linted
// files and that none of them creates.
func reportMissing(pass *lint.Pass, ref configRef) {
	severity := pass.Rule.Severity
	effect := "the container stays in CreateContainerConfigError"
	switch {
	case ref.effect != "":
		effect = ref.effect
	case strings.Contains(ref.what, "volume"):
		effect = "the pod stays in ContainerCreating (MountVolume.SetUp failed)"
	}
	if ref.kind == "Secret" && severity > lint.Warning {
		severity = lint.Warning // Secrets usually live outside the repository
	}
	if ref.pull {
		severity = lint.Info
	}
	if release := pass.Workload().Object.File.HelmRelease; namedAfterRelease(ref.name, release) {
		// Another chart of the same release, or the release's own hooks,
		// may create it: that depends on what is installed beside the chart.
		pass.Report(lint.Diagnostic{Severity: min(severity, lint.Warning), Path: ref.path, Message: fmt.Sprintf(
			"%s names %s %q, which is not in the linted files and whose name depends on the Helm release name (the chart "+
				"was rendered as release %q): if nothing installed with the release creates it, %s; lint with --release-name "+
				"set to the release you install, or list %s/%s under external: in .modellint.yaml if it is created elsewhere",
			ref.what, ref.kind, ref.name, release, effect, ref.kind, ref.name)})
		return
	}
	if twin, release := releaseTwin(pass, ref); twin != nil {
		// The chart names the object after the release and the reference
		// names it after one release in particular: it works only when the
		// chart is installed under that name.
		pass.Report(lint.Diagnostic{Severity: min(severity, lint.Warning), Path: ref.path, Message: fmt.Sprintf(
			"%s names %s %q, which is not in the linted files, but the chart names its %s %q after the release (rendered as "+
				"release %q): the name is written for a release called %q, and under any other release name %s; derive the "+
				"name from the release in the template ({{ .Release.Name }}%s), or lint with --release-name %s if that is the "+
				"release you install", ref.what, ref.kind, ref.name, ref.kind, twin.Name, twin.File.HelmRelease, release, effect,
			strings.TrimPrefix(twin.Name, twin.File.HelmRelease), release)})
		return
	}
	if severity == lint.Error && ref.effect == "" {
		pass = neverReady(pass) // nothing creates it: the container never starts
	}
	if generated := generatedUnder(pass, ref); generated != nil {
		pass.Report(lint.Diagnostic{Severity: severity, Path: ref.path, Message: fmt.Sprintf(
			"%s names %s %q, but the Kustomize overlay generates it as %s %q and left this reference as it was (kustomize "+
				"rewrites generated names only in the fields it knows of each kind): %s; declare the field under "+
				"configurations: (a nameReference) in the kustomization, or set generatorOptions: {disableNameSuffixHash: true}",
			ref.what, ref.kind, ref.name, ref.kind, generated.Name, effect)})
		return
	}
	pass.Report(lint.Diagnostic{Severity: severity, Path: ref.path, Message: fmt.Sprintf("%s names %s %q, which is not in the linted files: %s; add its manifest, fix the name, mark it optional, "+
		"or list %s/%s under external: in .modellint.yaml if it is created elsewhere", ref.what, ref.kind, ref.name, effect, ref.kind, ref.name)})
}

// kustomizeHash is the suffix kustomize appends to a generated name: the
// first 10 hex digits of a SHA-256, with 0, 1, 3, a and e swapped for g, h,
// k, m and t (sigs.k8s.io/kustomize/api/hasher).
var kustomizeHash = lazyregexp.New(`-[2456789bcdfghkmt]{10}$`)

// generatedUnder returns the object a Kustomize overlay generated (a
// configMapGenerator's, a secretGenerator's) for the reference's name, when
// the reference was not rewritten to the hashed name, as kustomize does not
// for fields it does not know (a CRD's pod template); nil when none.
func generatedUnder(pass *lint.Pass, ref configRef) *manifest.Object {
	for _, object := range pass.Objects.OfKindsIn(pass.Workload().Object.Namespace, ref.kind) {
		if !object.File.Rendered || object.File.HelmRelease != "" {
			continue
		}
		suffix := kustomizeHash.FindStringIndex(object.Name)
		if suffix == nil {
			continue
		}
		if base := object.Name[:suffix[0]]; base == ref.name || strings.HasSuffix(base, "-"+ref.name) {
			return object
		}
	}
	return nil
}

// releaseTwin returns the object a Helm chart names after its release
// ("release-name-config") whose name the reference repeats with another
// release's name in front ("ray-cluster-config", written in the values),
// and that other release name; nil when there is none.
func releaseTwin(pass *lint.Pass, ref configRef) (*manifest.Object, string) {
	release := pass.Workload().Object.File.HelmRelease
	if release == "" {
		return nil, ""
	}
	for _, object := range pass.Objects.OfKindsIn(pass.Workload().Object.Namespace, ref.kind) {
		suffix, named := strings.CutPrefix(object.Name, release+"-")
		if !named || object.File.HelmRelease != release {
			continue
		}
		if other, ok := strings.CutSuffix(ref.name, "-"+suffix); ok && other != "" {
			return object, other
		}
	}
	return nil, ""
}

// namedAfterRelease reports whether name is made from the Helm release
// name a chart was rendered with ("release-name-cache", "db-release-name").
func namedAfterRelease(name, release string) bool {
	return release != "" && (name == release || strings.HasPrefix(name, release+"-") ||
		strings.HasSuffix(name, "-"+release) || strings.Contains(name, "-"+release+"-"))
}

// checkCreatedKey reports a key that the object a controller creates for
// the linted files will not have.
func checkCreatedKey(pass *lint.Pass, ref configRef, created *manifest.Created) {
	if ref.key == "" || created.HasKey(ref.key) {
		return
	}
	keys := "no keys"
	if len(created.Keys) > 0 {
		keys = "only " + joinAnd(quoteAll(created.Keys))
	}
	neverReady(pass).Reportf(ref.keyPath,
		"%s reads key %q of %s %q, which %s %q creates with %s: the container stays in CreateContainerConfigError; "+
			"fix the key or have the %s create it", ref.what, ref.key, ref.kind, ref.name, created.By.Kind, created.By.Name,
		keys, created.By.Kind)
}

func quoteAll(words []string) []string {
	quoted := make([]string, len(words))
	for i, word := range words {
		quoted[i] = strconv.Quote(word)
	}
	return quoted
}

// objectKeys returns the keys of a ConfigMap or Secret.
func objectKeys(object *manifest.Object) map[string]bool {
	keys := map[string]bool{}
	for _, field := range []string{"data", "binaryData", "stringData"} {
		if value, ok := object.Lookup(field); ok {
			if fields, ok := value.(map[string]any); ok {
				for key := range fields {
					keys[key] = true
				}
			}
		}
	}
	return keys
}

func describeKeys(keys map[string]bool) string {
	if len(keys) == 0 {
		return "no keys"
	}
	names := make([]string, 0, len(keys))
	for key := range keys {
		names = append(names, key)
	}
	sort.Strings(names)
	if len(names) > 5 {
		names = append(names[:5], fmt.Sprintf("%d more", len(keys)-5))
	}
	return joinAnd(names)
}

// podConfigRefs lists every reference from the pod to ConfigMaps and Secrets.
func podConfigRefs(w *manifest.Workload) []configRef {
	var refs []configRef
	for _, c := range w.Containers {
		for i, env := range c.Env {
			if env.ValueFrom == nil {
				continue
			}
			base := fmt.Sprintf("%s.env[%d].valueFrom", c.Path, i)
			what := fmt.Sprintf("%s: env %s", c.Label(), env.Name)
			if ref := env.ValueFrom.ConfigMapKeyRef; ref != nil {
				refs = append(refs, configRef{kind: "ConfigMap", name: ref.Name, key: ref.Key, optional: isTrue(ref.Optional),
					path: base + ".configMapKeyRef.name", keyPath: base + ".configMapKeyRef.key", what: what})
			}
			if ref := env.ValueFrom.SecretKeyRef; ref != nil {
				refs = append(refs, configRef{kind: "Secret", name: ref.Name, key: ref.Key, optional: isTrue(ref.Optional),
					path: base + ".secretKeyRef.name", keyPath: base + ".secretKeyRef.key", what: what})
			}
		}
		for i, from := range c.EnvFrom {
			base := fmt.Sprintf("%s.envFrom[%d]", c.Path, i)
			what := c.Label() + ": envFrom"
			if ref := from.ConfigMapRef; ref != nil {
				refs = append(refs, configRef{kind: "ConfigMap", name: ref.Name, optional: isTrue(ref.Optional),
					path: base + ".configMapRef.name", what: what})
			}
			if ref := from.SecretRef; ref != nil {
				refs = append(refs, configRef{kind: "Secret", name: ref.Name, optional: isTrue(ref.Optional),
					path: base + ".secretRef.name", what: what})
			}
		}
	}
	for i, secret := range w.Spec.ImagePullSecrets {
		// The kubelet pulls without a pull secret it cannot find, which
		// fails only for a registry that wants credentials.
		refs = append(refs, configRef{kind: "Secret", name: secret.Name, pull: true,
			path: manifest.IndexPath(manifest.JoinPath(w.SpecPath, "imagePullSecrets"), i) + ".name", what: "imagePullSecrets",
			effect: "the kubelet pulls the images without it, and an image of a registry that wants credentials fails with ImagePullBackOff"})
	}
	for i, volume := range w.Spec.Volumes {
		base := volumePath(w, i)
		what := fmt.Sprintf("volume %q", volume.Name)
		if source := volume.ConfigMap; source != nil {
			refs = append(refs, configRef{kind: "ConfigMap", name: source.Name, optional: isTrue(source.Optional),
				path: base + ".configMap.name", what: what})
		}
		if source := volume.Secret; source != nil {
			refs = append(refs, configRef{kind: "Secret", name: source.SecretName, optional: isTrue(source.Optional),
				path: base + ".secret.secretName", what: what})
		}
		if volume.Projected != nil {
			for j, source := range volume.Projected.Sources {
				sourcePath := fmt.Sprintf("%s.projected.sources[%d]", base, j)
				if source.ConfigMap != nil {
					refs = append(refs, configRef{kind: "ConfigMap", name: source.ConfigMap.Name, optional: isTrue(source.ConfigMap.Optional),
						path: sourcePath + ".configMap.name", what: what})
				}
				if source.Secret != nil {
					refs = append(refs, configRef{kind: "Secret", name: source.Secret.Name, optional: isTrue(source.Secret.Optional),
						path: sourcePath + ".secret.name", what: what})
				}
			}
		}
	}
	return refs
}

func isTrue(b *bool) bool { return b != nil && *b }

var (
	// anyEnvName is what Kubernetes accepts as an env var name in $(VAR).
	anyEnvName = lazyregexp.New(`^[A-Za-z_][A-Za-z0-9_]*$`)
	// upperEnvName is an env var name that is not a shell command substitution.
	upperEnvName = lazyregexp.New(`^[A-Z_][A-Z0-9_]*$`)
	// serviceLinkVar matches the env vars the kubelet adds for Services.
	serviceLinkVar = lazyregexp.New(`_SERVICE_HOST$|_SERVICE_PORT(_[A-Z0-9_]+)?$|_PORT(_\d+_(TCP|UDP|SCTP)(_(PROTO|PORT|ADDR))?)?$`)
	shells         = map[string]bool{"sh": true, "bash": true, "ash": true, "dash": true, "zsh": true, "ksh": true}
)

// platformEnv are env vars a serving platform adds to the container.
var platformEnv = map[string][]string{
	"kserve": {"PORT", "K_SERVICE", "K_CONFIGURATION", "K_REVISION"},
}

// checkVarReferences reports $(VAR) in command and args naming no env var of
// the container: Kubernetes then leaves the text as it is.
func checkVarReferences(pass *lint.Pass, c *manifest.Container) {
	defined, complete := definedEnv(pass, c)
	if !complete {
		return
	}
	shell := len(c.Command) > 0 && shells[path.Base(c.Command[0])] ||
		len(c.Command) == 0 && len(c.Args) > 0 && shells[path.Base(c.Args[0])]
	names := upperEnvName
	if !shell {
		names = anyEnvName
	}
	for _, field := range []struct {
		name  string
		words []string
	}{{"command", c.Command}, {"args", c.Args}} {
		for i, word := range field.words {
			for _, name := range varReferences(word) {
				if defined[name] || !names.MatchString(name) || serviceLinkVar.MatchString(name) {
					continue
				}
				effect := fmt.Sprintf("the program receives the literal \"$(%s)\"", name)
				switch {
				case shell:
					effect = fmt.Sprintf("the shell then runs %s as a command", name)
				case c.Serving():
					effect = fmt.Sprintf("the server receives the literal \"$(%s)\"", name)
				}
				pass.Reportf(fmt.Sprintf("%s.%s[%d]", c.Path, field.name, i),
					"%s: %s[%d] uses $(%s), but the container defines no env var %s: Kubernetes leaves the text as it is, so %s; "+
						"add %s to env (or write $$(%s) if the text is meant literally)",
					c.Label(), field.name, i, name, name, effect, name, name)
			}
		}
	}
}

// varReferences returns the names in $(NAME) references of a string, skipping
// $$ escapes as Kubernetes' expansion does.
func varReferences(s string) []string {
	var names []string
	for i := 0; i+1 < len(s); i++ {
		if s[i] != '$' {
			continue
		}
		switch s[i+1] {
		case '$':
			i++
		case '(':
			end := strings.IndexByte(s[i+2:], ')')
			if end < 0 {
				return names
			}
			names = append(names, s[i+2:i+2+end])
			i += 2 + end
		}
	}
	return names
}

// definedEnv returns the env var names a container gets from its spec. It is
// incomplete when an envFrom source is not in the linted files, or is created
// with keys its creator does not tell (any name may come from it).
func definedEnv(pass *lint.Pass, c *manifest.Container) (map[string]bool, bool) {
	w := pass.Workload()
	defined := map[string]bool{}
	for _, env := range c.Env {
		defined[env.Name] = true
	}
	for _, name := range platformEnv[w.Platform] {
		defined[name] = true
	}
	for _, name := range c.InjectedEnv { // set by the workload's controller (LWS, KubeRay, indexed Jobs)
		defined[name] = true
	}
	for _, from := range c.EnvFrom {
		var kind, name string
		switch {
		case from.ConfigMapRef != nil:
			kind, name = "ConfigMap", from.ConfigMapRef.Name
		case from.SecretRef != nil:
			kind, name = "Secret", from.SecretRef.Name
		}
		if object := pass.Objects.Find(kind, w.Object.Namespace, name); object != nil {
			for key := range objectKeys(object) {
				defined[from.Prefix+key] = true
			}
			continue
		}
		created := pass.Objects.FindCreated(kind, w.Object.Namespace, name)
		if created == nil || created.AnyKey {
			return defined, false
		}
		for _, key := range created.Keys {
			defined[from.Prefix+key] = true
		}
	}
	return defined, true
}

var volumeMountUndefined = &lint.Rule{
	ID: "MDL210", Name: "volume-mount-undefined", Severity: lint.Error,
	Artifact: lint.ArtifactManifest, Needs: []lint.Fact{lint.FactManifest},
	Doc: lint.Doc{
		Summary: "A volumeMount names no volume of the pod; (info) a PersistentVolumeClaim is not in the linted files.",
		Why: "The API server rejects a pod whose volumeMount names no volume (\"volumeMounts[0].name: Not found\"), so a " +
			"Deployment's ReplicaSet never creates a pod and the rollout hangs. A claim that does not exist keeps the pod " +
			"Pending (\"persistentvolumeclaim not found\"); it may be created elsewhere, so that is only info. A StatefulSet's " +
			"volumeClaimTemplates count as volumes; KServe's storage-initializer volume (kserve-provision-location) counts " +
			"for InferenceServices and ServingRuntimes, and an InferenceService's shorthand container may mount the volumes " +
			"of ServingRuntimes in the linted files. A claim a controller makes for an object of the files counts (the NIM " +
			"operator's for a NIMCache or NIMService with spec.storage.pvc.create). Claims listed under external: in " +
			".modellint.yaml are not reported.",
		Bad: `containers:
  - name: tf-serving
    volumeMounts:
      - name: model
        mountPath: /models/resnet
volumes:
  - name: models
    persistentVolumeClaim: {claimName: resnet-models}`,
		Good: `containers:
  - name: tf-serving
    volumeMounts:
      - name: models
        mountPath: /models/resnet
volumes:
  - name: models
    persistentVolumeClaim: {claimName: resnet-models}`,
		Fix: "Make the volumeMount's name match a volume under spec.volumes (or add the volume); add the claim's manifest " +
			"or list it under external: in .modellint.yaml.",
		References: []string{
			"https://kubernetes.io/docs/concepts/storage/volumes/",
			"https://kubernetes.io/docs/concepts/storage/persistent-volumes/#claims-as-volumes",
			"https://kubernetes.io/docs/concepts/workloads/controllers/statefulset/#volume-claim-templates",
		},
	},
	Check: checkVolumeMounts,
}

// kserveVolumes are volumes KServe adds to the pods it builds.
var kserveVolumes = []string{"kserve-provision-location"}

// claimTemplates are the names of the claim templates the workload's
// controller turns into a volume of each pod (StatefulSet, LeaderWorkerSet).
func claimTemplates(w *manifest.Workload) []string {
	names := slices.Clone(w.ClaimTemplates)
	if w.StatefulSet != nil {
		for _, template := range w.StatefulSet.Spec.VolumeClaimTemplates {
			names = append(names, template.Name)
		}
	}
	return names
}

func checkVolumeMounts(pass *lint.Pass) {
	w := pass.Workload()
	defined := map[string]bool{}
	var names []string
	for _, volume := range w.Spec.Volumes {
		defined[volume.Name] = true
		names = append(names, fmt.Sprintf("%q", volume.Name))
	}
	for _, template := range claimTemplates(w) {
		defined[template] = true
		names = append(names, fmt.Sprintf("%q", template))
	}
	if w.Platform == "kserve" {
		for _, name := range kserveVolumes {
			defined[name] = true
		}
	}
	runtimeVolumes := servingRuntimeVolumes(pass)
	for _, c := range w.Containers {
		for i, mount := range c.VolumeMounts {
			if defined[mount.Name] || c.FromServingRuntime && runtimeVolumes[mount.Name] {
				continue
			}
			declared := "the pod declares no volumes"
			if len(names) > 0 {
				declared = "the pod's volumes are " + joinAnd(names)
			}
			neverReady(pass).Reportf(fmt.Sprintf("%s.volumeMounts[%d].name", c.Path, i),
				"%s mounts volume %q at %s, but %s: the API server rejects the pod, so none is created; "+
					"fix the name or add the volume", c.Label(), mount.Name, mount.MountPath, declared)
		}
	}
	for i, volume := range w.Spec.Volumes {
		claim := volume.PersistentVolumeClaim
		if claim == nil || claim.ClaimName == "" || slices.Contains(claimTemplates(w), volume.Name) {
			continue // a StatefulSet replaces a volume named like a claim template with the pod's own claim
		}
		namespace := w.Object.Namespace
		if pass.Objects.Find("PersistentVolumeClaim", namespace, claim.ClaimName) != nil ||
			pass.Objects.FindCreated("PersistentVolumeClaim", namespace, claim.ClaimName) != nil ||
			pass.Config.IsExternal("PersistentVolumeClaim", namespace, claim.ClaimName) {
			continue
		}
		pass.Report(lint.Diagnostic{Severity: lint.Info, Path: volumePath(w, i) + ".persistentVolumeClaim.claimName", Message: fmt.Sprintf("volume %q uses PersistentVolumeClaim %q, which is not in the linted files: the pod stays Pending until it exists; "+
			"add its manifest, or list PersistentVolumeClaim/%s under external: in .modellint.yaml", volume.Name, claim.ClaimName, claim.ClaimName)})
	}
}

// servingRuntimeVolumes are the volume names of the ServingRuntimes and
// ClusterServingRuntimes in the linted files, which an InferenceService's
// shorthand container may mount. They are read off the objects, not the
// workloads: a runtime another predictor was composed with is no workload
// any more, and KServe may still run this shorthand with it.
func servingRuntimeVolumes(pass *lint.Pass) map[string]bool {
	names := map[string]bool{}
	if pass.Workload().Object.Kind != "InferenceService" {
		return names
	}
	for _, object := range pass.Objects.OfKinds("ServingRuntime", "ClusterServingRuntime") {
		var volumes []corev1.Volume
		if object.Group() != "serving.kserve.io" || object.Decode(&volumes, "spec", "volumes") != nil {
			continue
		}
		for _, volume := range volumes {
			names[volume.Name] = true
		}
	}
	return names
}
