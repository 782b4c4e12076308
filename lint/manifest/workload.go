package manifest

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/modellint/modellint/lint/server"
)

// Workload is one pod template: a Pod, the template of a controller, or one
// component of a serving CRD (an InferenceService predictor, say).
type Workload struct {
	Object *Object
	// Component names the part of a CRD this pod template is ("predictor"),
	// empty for plain workloads.
	Component string
	// SpecPath is the field path of the pod spec inside the object.
	SpecPath string
	// TemplateMetaPath is the field path of the pod template's metadata ("" if none).
	TemplateMetaPath string
	// Spec is the pod spec, in the typed object when the object has one
	// (shared with it, read-only), else decoded on its own.
	Spec *corev1.PodSpec
	// TemplateAnnotations are the pod template's annotations.
	TemplateAnnotations map[string]string
	Containers          []*Container
	// Platform is "kserve", "seldon" or "kuberay" when a serving platform
	// builds the pod and fills in what the manifest does not show: KServe
	// and Seldon add probes or resources (an LLMInferenceService gets its
	// LLMInferenceServiceConfig presets), KubeRay gives the Ray container
	// (the first one) its start command, readiness and liveness probes and
	// /dev/shm.
	Platform string

	// Lifecycle is what the controller does with pods whose containers exit,
	// "" when no controller replaces them (a bare Pod, a template others use).
	Lifecycle Lifecycle

	// Controller facts, set for the kinds that have them.
	Deployment  *appsv1.Deployment
	StatefulSet *appsv1.StatefulSet
	Job         *batchv1.JobSpec
	JobPath     string // field path of the JobSpec ("spec" or "spec.jobTemplate.spec")
	Rollout     *RolloutSpec
	// RollingUpdate is set for the kinds whose controller rolls pods like a
	// Deployment but that have no typed spec here (LeaderWorkerSet,
	// LLMInferenceService).
	RollingUpdate *RollingUpdate
	// Group is set for pods that start and serve as a group (a
	// LeaderWorkerSet's leader and workers).
	Group *PodGroup
	// ClaimTemplates are the names of the volume claim templates the
	// controller gives each pod a claim of, as a volume of that name (a
	// LeaderWorkerSet's; a StatefulSet's are in StatefulSet).
	ClaimTemplates []string
	// InstanceType is the cloud instance type the controller provisions
	// the pods' nodes of (KAITO's resource.instanceType), "" when none is
	// named: it names the GPU the pods get.
	InstanceType string
	// Preset is the preset model of a KAITO Workspace whose pods KAITO
	// builds (see kaito.go); the workload has no containers when the
	// preset or the GPUs of its instance type are not known.
	Preset *Preset
	// SeldonModel is a Seldon Core v2 Model, which Seldon places on the
	// pods of a Server; the workload then has no containers.
	SeldonModel *SeldonModel
	// Assumed is the field path of a pod spec the controller is assumed to
	// build as the release modellint knows does (a KAITO preset's): errors
	// found at it or under it are warnings, as the release installed may
	// build otherwise; "" when there is none. userCaused are the fields
	// under it (relative, ".volumes[0]") that any release builds of the
	// user's own (see AssumedAt).
	Assumed    string
	userCaused []string
	// Incomplete says the pod spec is not all of the pod: it was found in a
	// kind modellint has no reader for (see GenericPodPaths), or it is an
	// override its controller merges into another object's (a Seldon v2
	// Server's podSpec over its ServerConfig's, or over the default one
	// Seldon's chart installs). What the rest adds is not known.
	Incomplete bool

	// ServeConfig is a RayService's Ray Serve applications: the YAML text of
	// spec.serveConfigV2, written at ServeConfigPath.
	ServeConfig     string
	ServeConfigPath string
	// ModelURI is where the platform downloads the model from (an
	// LLMInferenceService's spec.model.uri), written at ModelURIPath.
	ModelURI     string
	ModelURIPath string

	// name is Name, made once Workloads has the workload whole: every
	// finding of it carries the name, which would otherwise be copied into
	// each.
	name string
	// done is set by Done.
	done bool
}

// Lifecycle is what a workload's controller does with pods whose containers
// exit.
type Lifecycle string

const (
	// KeptRunning pods are restarted or replaced whenever they exit, even
	// with success: Deployments, StatefulSets, LeaderWorkerSets, KubeRay's
	// clusters, the pods of serving platforms.
	KeptRunning Lifecycle = "kept running"
	// RunToCompletion pods are done once they succeed: Jobs, CronJobs,
	// JobSets, the Ray clusters of RayJobs.
	RunToCompletion Lifecycle = "run to completion"
)

// RollingUpdate is how a controller replaces pods when their template
// changes, for kinds that roll like a Deployment (old pods go as new ones
// become Ready, within maxUnavailable and maxSurge) but have no typed spec
// here. A LeaderWorkerSet rolls whole groups the same way. It is set on one
// workload of the object, the group leader's, so a rollout is judged once.
type RollingUpdate struct {
	Replicas *int32 // nil when not written: the controller runs 1
	// Path is the field path of the mapping that holds maxUnavailable and
	// maxSurge.
	Path string
	// MaxUnavailable and MaxSurge are nil when not written; the controller
	// then uses the defaults.
	MaxUnavailable, MaxSurge               *intstr.IntOrString
	DefaultMaxUnavailable, DefaultMaxSurge intstr.IntOrString
}

// PodGroup describes pods that a controller starts as a group serving one
// model together: a LeaderWorkerSet's leader and its workers.
type PodGroup struct {
	Size     int32  // pods in a group, the leader included
	SizePath string // field path of the size; "" when not written (1)
	// Pods are the resources of the containers of each template, by its
	// workload's Component ("leader", "worker"; "" for the one template
	// of both), kept from the extraction: a rule of one template reads the
	// other's after that workload is done and its containers are gone.
	Pods map[string][]corev1.ResourceRequirements
}

// Name is how findings and reports name the workload.
func (w *Workload) Name() string {
	if w.name != "" {
		return w.name
	}
	return w.describe()
}

func (w *Workload) describe() string {
	if w.Component != "" {
		return w.Object.ID() + " (" + w.Component + ")"
	}
	return w.Object.ID()
}

// Container is a container of a workload with the path it was written at.
type Container struct {
	// *corev1.Container is the container as decoded, in its workload's pod
	// spec (shared with it, read-only), not a copy.
	*corev1.Container
	// Image is the container's image, kept apart from the corev1.Container
	// so that it can be read while the workload is not held (see Hold):
	// the images a run reads are gathered from every workload at once.
	Image string
	Path  string // e.g. spec.template.spec.containers[0]
	Init  bool
	// Runtime is the serving runtime the container runs, nil for other containers.
	Runtime *server.Runtime
	// FromServingRuntime is true for KServe's model shorthand, whose image,
	// command and probes come from a ServingRuntime, and for the "main"
	// container of an LLMInferenceService, whose image, command, probes and
	// volumes come from its LLMInferenceServiceConfig presets.
	FromServingRuntime bool
	// ComposedFrom is, for a container the platform composes from the
	// manifest's and another object's (an InferenceService's model spec
	// merged over its ServingRuntime's kserve-container), that other
	// object; nil for others. Its fields are placed in whichever object
	// wrote them (see Object.Borrow).
	ComposedFrom *Object
	// Injected names what adds the container to the pod when the pod is
	// created (KServe's storage-initializer webhook), "" for the
	// manifest's own: its image and settings come from the platform's
	// config, not from a field a user of the manifest edits.
	Injected string
	// Invoked is what the server is told, as the engine read it from what
	// really runs (the image's start and its wrapper scripts included);
	// nil until then.
	Invoked *server.Invocation
	// InjectedEnv names the env vars the controller adds to the container
	// when it creates the pod (LWS_LEADER_ADDRESS, KubeRay's RAY_ADDRESS,
	// an Indexed Job's JOB_COMPLETION_INDEX): $(NAME) of them is expanded
	// although the manifest does not define them.
	InjectedEnv []string
	// PlatformCommand and PlatformArgs are what the platform runs in place
	// of the manifest's command and args (KubeRay's `/bin/bash -c --
	// "…; ray start …"` in the Ray container, where the manifest's command
	// and args become words of the shell text), nil when the manifest's
	// run; StartedBy names that platform.
	PlatformCommand, PlatformArgs []string
	StartedBy                     string
	// Built is true for a container the controller builds whole from
	// fields that are no container (a KAITO preset's): none of its fields
	// is the user's to edit.
	Built bool
}

// Started is the container as the kubelet gets it: with the command and
// args the platform puts in place of the manifest's.
func (c *Container) Started() *corev1.Container {
	if c.PlatformCommand == nil {
		return c.Container
	}
	started := *c.Container
	started.Command, started.Args = c.PlatformCommand, c.PlatformArgs
	return &started
}

// Invocation is what the container tells its server: as the engine read it
// from what runs, else from the manifest's command, args and literal env
// values; nil for containers that are not servers.
func (c *Container) Invocation() *server.Invocation {
	if c.Runtime == nil {
		return nil
	}
	if c.Invoked != nil && c.Invoked.Runtime == c.Runtime {
		return c.Invoked
	}
	input := server.Container{Command: c.Command, Args: c.Args, Env: map[string]string{}, EnvIndex: c.EnvIndex()}
	for _, env := range c.Env {
		if env.ValueFrom == nil {
			input.Env[env.Name] = env.Value
		}
	}
	return c.Runtime.Parse(input)
}

// EnvIndex maps the names of the container's literal env values to their
// positions in env, for field paths. Of a name written twice the last
// counts, as the kubelet gives the process the last.
func (c *Container) EnvIndex() map[string]int {
	index := map[string]int{}
	for i, env := range c.Env {
		if env.ValueFrom == nil {
			index[env.Name] = i
		} else {
			delete(index, env.Name)
		}
	}
	return index
}

// ProbesModelEndpoint reports whether a probe asks for a model-readiness
// endpoint: a model server by the shape of its probes.
func (c *Container) ProbesModelEndpoint() bool { return probesModelEndpoint(c.Container) }

// Serving reports whether the container is a model server.
func (c *Container) Serving() bool { return c.Runtime != nil && !c.Init }

// PlatformWritten says the container's image and settings are written by
// a controller or webhook (an injected container, a KAITO preset's), not
// by a field of the manifest a user edits.
func (c *Container) PlatformWritten() bool { return c.Injected != "" || c.Built }

// Label names the container in messages.
func (c *Container) Label() string {
	if c.Injected != "" {
		return "container " + c.Name + " (added by " + c.Injected + ")"
	}
	if c.Name != "" {
		return "container " + c.Name
	}
	return "container at " + c.Path
}

// RolloutSpec holds the parts of an Argo Rollout the rules look at.
type RolloutSpec struct {
	Replicas                *int32 `json:"replicas"`
	MinReadySeconds         int32  `json:"minReadySeconds"`
	ProgressDeadlineSeconds *int32 `json:"progressDeadlineSeconds"`
	Strategy                struct {
		Canary *struct {
			MaxUnavailable any `json:"maxUnavailable"`
			MaxSurge       any `json:"maxSurge"`
		} `json:"canary"`
		BlueGreen *struct{} `json:"blueGreen"`
	} `json:"strategy"`
}

// podTemplate says where a kind keeps its pod spec.
type podTemplate struct {
	spec, meta string
}

// podTemplates maps "group/Kind" to where its pod template lives.
var podTemplates = map[string]podTemplate{
	"/Pod":                                    {"spec", "metadata"},
	"/ReplicationController":                  {"spec.template.spec", "spec.template.metadata"},
	"/PodTemplate":                            {"template.spec", "template.metadata"},
	"apps/Deployment":                         {"spec.template.spec", "spec.template.metadata"},
	"apps/StatefulSet":                        {"spec.template.spec", "spec.template.metadata"},
	"apps/DaemonSet":                          {"spec.template.spec", "spec.template.metadata"},
	"apps/ReplicaSet":                         {"spec.template.spec", "spec.template.metadata"},
	"extensions/Deployment":                   {"spec.template.spec", "spec.template.metadata"},
	"extensions/DaemonSet":                    {"spec.template.spec", "spec.template.metadata"},
	"extensions/ReplicaSet":                   {"spec.template.spec", "spec.template.metadata"},
	"batch/Job":                               {"spec.template.spec", "spec.template.metadata"},
	"batch/CronJob":                           {"spec.jobTemplate.spec.template.spec", "spec.jobTemplate.spec.template.metadata"},
	"argoproj.io/Rollout":                     {"spec.template.spec", "spec.template.metadata"},
	"mlops.seldon.io/Server":                  {"spec.podSpec", ""},
	"mlops.seldon.io/ServerConfig":            {"spec.podSpec", ""},
	"serving.kserve.io/ServingRuntime":        {"spec", ""},
	"serving.kserve.io/ClusterServingRuntime": {"spec", ""},
	// KAITO runs inference.template as a StatefulSet of resource.count pods;
	// a preset Workspace has no template (see NotLinted).
	"kaito.sh/Workspace": {"inference.template.spec", "inference.template.metadata"},
}

// lifecycles says what the controller of each single-template kind does
// with pods that exit.
var lifecycles = map[string]Lifecycle{
	"/ReplicationController": KeptRunning,
	"apps/Deployment":        KeptRunning,
	"apps/StatefulSet":       KeptRunning,
	"apps/DaemonSet":         KeptRunning,
	"apps/ReplicaSet":        KeptRunning,
	"extensions/Deployment":  KeptRunning,
	"extensions/DaemonSet":   KeptRunning,
	"extensions/ReplicaSet":  KeptRunning,
	"batch/Job":              RunToCompletion,
	"batch/CronJob":          RunToCompletion,
	"argoproj.io/Rollout":    KeptRunning,
	"mlops.seldon.io/Server": KeptRunning,
	"kaito.sh/Workspace":     KeptRunning,
}

// multiTemplateKinds maps "group/Kind" to the extractor of kinds with
// several pod templates, or with facts around the template that a
// podTemplates entry cannot say.
var multiTemplateKinds = map[string]func(*Object) ([]*Workload, error){
	"serving.kserve.io/InferenceService":         inferenceServiceWorkloads,
	"machinelearning.seldon.io/SeldonDeployment": seldonDeploymentWorkloads,
	"serving.kserve.io/LLMInferenceService":      llmInferenceServiceWorkloads,
	"leaderworkerset.x-k8s.io/LeaderWorkerSet":   leaderWorkerSetWorkloads,
	"ray.io/RayService":                          rayServiceWorkloads,
	"ray.io/RayCluster":                          rayClusterWorkloads,
	"ray.io/RayJob":                              rayJobWorkloads,
	"jobset.x-k8s.io/JobSet":                     jobSetWorkloads,
	// AIBrix runs a RayCluster of spec.template.spec for each replica, as
	// KubeRay builds it.
	"orchestration.aibrix.ai/RayClusterFleet":      aibrixRayClusters,
	"orchestration.aibrix.ai/RayClusterReplicaSet": aibrixRayClusters,
	// KAITO makes Workspaces of the template (see kaito.go).
	"kaito.sh/InferenceSet": inferenceSetWorkloads,
	"kaito.sh/RAGEngine":    ragEngineWorkloads,
	// KAITO makes an InferenceSet of each role.
	"kaito.sh/MultiRoleInference": multiRoleInferenceWorkloads,
}

// kserveComponents are the pod-bearing parts of an InferenceService.
var kserveComponents = []string{"predictor", "transformer", "explainer"}

// kserveShorthands are the keys of an InferenceService component that
// describe the serving container without an image (v1beta1 "model" and the
// older per-framework keys).
var kserveShorthands = []string{"model", "tensorflow", "triton", "pytorch", "sklearn", "xgboost", "lightgbm",
	"onnx", "pmml", "paddle", "huggingface", "art", "alibi"}

// HasPodTemplate reports whether an object of the group and kind holds
// one pod template, at a place of its own (a Deployment's, a Job's).
func HasPodTemplate(group, kind string) bool {
	_, ok := podTemplates[group+"/"+kind]
	return ok
}

// IsWorkloadKind reports whether modellint extracts pod specs from the object.
func IsWorkloadKind(o *Object) bool {
	key := o.Group() + "/" + o.Kind
	_, single := podTemplates[key]
	_, multiple := multiTemplateKinds[key]
	return single || multiple || len(genericPods(o)) > 0
}

// Workloads extracts every pod template of an object. Objects of other kinds
// yield none.
func Workloads(o *Object) ([]*Workload, error) {
	workloads, err := extractWorkloads(o)
	for _, w := range workloads {
		w.name = w.describe() // now that its component is final
	}
	return workloads, err
}

func extractWorkloads(o *Object) ([]*Workload, error) {
	// A workload of a built-in kind is then read off the typed object; a
	// serving CRD whose strict decode met a field of the wrong type is
	// rejected by the API server as a whole.
	if invalid := o.decodeStrict().invalid; invalid != nil {
		return nil, invalid
	}
	key := o.Group() + "/" + o.Kind
	if extract, ok := multiTemplateKinds[key]; ok {
		return extract(o)
	}
	template, ok := podTemplates[key]
	if !ok {
		return genericWorkloads(o)
	}
	w, err := newWorkload(o, "", template.spec, template.meta)
	if err == nil && w == nil && key == "kaito.sh/Workspace" {
		w, err = kaitoPresetWorkload(o)
	}
	if err != nil || w == nil {
		return nil, err
	}
	if strings.HasPrefix(key, "serving.kserve.io/") {
		w.Platform = "kserve"
	} else if strings.HasPrefix(key, "mlops.seldon.io/") {
		w.Platform = "seldon"
	}
	w.Lifecycle = lifecycles[key]
	// Seldon's ServerReconciler merges the Server's podSpec over the
	// ServerConfig's, containers by name (mergePodSpecs).
	w.Incomplete = key == "mlops.seldon.io/Server"
	if key == "kaito.sh/Workspace" && w.Preset == nil {
		instanceType, _ := o.Lookup("resource", "instanceType")
		w.InstanceType, _ = instanceType.(string)
	}
	if err := w.decodeController(key); err != nil {
		return nil, err
	}
	return []*Workload{w}, nil
}

// templateWorkload decodes the PodTemplateSpec at path.
func templateWorkload(o *Object, component, path string) (*Workload, error) {
	return newWorkload(o, component, path+".spec", path+".metadata")
}

func splitPath(path string) []string {
	if path == "" {
		return nil
	}
	return strings.Split(path, ".")
}

var objectMetaType = reflect.TypeOf(metav1.ObjectMeta{})

// newWorkload decodes the pod spec at specPath; nil when the object has none.
func newWorkload(o *Object, component, specPath, metaPath string) (*Workload, error) {
	if o.kindAt(splitPath(specPath)...) == kindUnread {
		return nil, nil
	}
	w := &Workload{Object: o, Component: component, SpecPath: specPath, TemplateMetaPath: metaPath}
	if w.Spec = typedFieldOf[corev1.PodSpec](o, splitPath(specPath)); w.Spec == nil {
		w.Spec = &corev1.PodSpec{}
		if err := o.Decode(w.Spec, splitPath(specPath)...); err != nil {
			return nil, err
		}
	}
	if typed, ok := o.typedField(splitPath(metaPath)); ok && metaPath != "" && typed.Type() == objectMetaType {
		w.TemplateAnnotations = typed.Interface().(metav1.ObjectMeta).Annotations
	} else if metaPath != "" {
		var meta struct {
			Annotations map[string]string `json:"annotations"`
		}
		if err := o.Decode(&meta, splitPath(metaPath)...); err != nil {
			return nil, err
		}
		w.TemplateAnnotations = meta.Annotations
	}
	for i := range w.Spec.InitContainers {
		w.addContainer(&w.Spec.InitContainers[i], IndexPath(JoinPath(specPath, "initContainers"), i), true)
	}
	for i := range w.Spec.Containers {
		w.addContainer(&w.Spec.Containers[i], IndexPath(JoinPath(specPath, "containers"), i), false)
	}
	return w, nil
}

func (w *Workload) addContainer(c *corev1.Container, path string, init bool) *Container {
	container := &Container{Container: c, Image: c.Image, Path: path, Init: init}
	if !init {
		container.Runtime = server.Detect(c.Image, c.Command, c.Args)
		if container.Runtime == nil && probesModelEndpoint(c) {
			container.Runtime = server.Generic
		}
	}
	w.Containers = append(w.Containers, container)
	return container
}

// probesModelEndpoint recognises a model server by its probe shape.
func probesModelEndpoint(c *corev1.Container) bool {
	for _, probe := range []*corev1.Probe{c.ReadinessProbe, c.LivenessProbe, c.StartupProbe} {
		if probe != nil && probe.HTTPGet != nil && server.Generic.IsModelReadyPath(probe.HTTPGet.Path) {
			return true
		}
	}
	return false
}

func (w *Workload) decodeController(key string) error {
	o := w.Object
	switch key {
	case "apps/Deployment", "extensions/Deployment":
		if w.Deployment = typedObject[appsv1.Deployment](o); w.Deployment != nil {
			return nil
		}
		w.Deployment = &appsv1.Deployment{}
		return o.Decode(w.Deployment)
	case "apps/StatefulSet":
		if w.StatefulSet = typedObject[appsv1.StatefulSet](o); w.StatefulSet != nil {
			return nil
		}
		w.StatefulSet = &appsv1.StatefulSet{}
		return o.Decode(w.StatefulSet)
	case "batch/Job", "batch/CronJob":
		w.Job, w.JobPath = &batchv1.JobSpec{}, "spec"
		if key == "batch/CronJob" {
			w.JobPath = "spec.jobTemplate.spec"
		}
		if err := o.Decode(w.Job, splitPath(w.JobPath)...); err != nil {
			return err
		}
		if w.Job.CompletionMode != nil && *w.Job.CompletionMode == batchv1.IndexedCompletion {
			w.injectEnv(indexedJobEnv...)
		}
		return nil
	case "argoproj.io/Rollout":
		w.Rollout = &RolloutSpec{}
		return o.Decode(w.Rollout, "spec")
	}
	return nil
}

// inferenceServiceWorkloads yields one workload per component. A component
// is itself a pod spec (containers, volumes, …) plus optionally a shorthand
// key ("model", "tensorflow", …) whose value is a container without image.
func inferenceServiceWorkloads(o *Object) ([]*Workload, error) {
	var workloads []*Workload
	for _, component := range kserveComponents {
		specPath := "spec." + component
		w, err := newWorkload(o, component, specPath, "")
		if err != nil || w == nil {
			if err != nil {
				return nil, err
			}
			continue
		}
		w.Platform = "kserve"
		w.Lifecycle = KeptRunning
		fields, _ := o.Lookup("spec", component)
		componentFields, _ := fields.(map[string]any)
		if component == "transformer" && len(w.Spec.Containers) > 0 {
			addTransformerArgs(o, &w.Spec.Containers[0], componentFields)
		}
		if component == "predictor" && !hasShorthand(componentFields) {
			if c := kserveServedContainer(w); c != nil && c.Runtime == nil {
				// KServe sends the predictor's traffic to it (its first port,
				// else 8080), whatever program it runs.
				c.Runtime = server.Generic
			}
		}
		for _, shorthand := range kserveShorthands {
			if _, ok := componentFields[shorthand]; !ok {
				continue
			}
			var model struct {
				corev1.Container
				ModelFormat struct {
					Name string `json:"name"`
				} `json:"modelFormat"`
				Runtime string `json:"runtime"`
			}
			if err := o.Decode(&model, "spec", component, shorthand); err != nil {
				return nil, err
			}
			if model.Name == "" {
				model.Name = "kserve-container"
			}
			c := w.addContainer(&model.Container, JoinPath(specPath, shorthand), false)
			c.FromServingRuntime = true
			format := shorthand
			if shorthand == "model" {
				format = model.ModelFormat.Name
			}
			// The format names the runtime more surely than the probe shape
			// that may have matched the generic model server.
			if c.Runtime == nil || c.Runtime == server.Generic {
				if runtime := server.ForKServeFormat(format); runtime != nil {
					c.Runtime = runtime
				}
			}
			if c.Runtime == nil && component == "predictor" {
				c.Runtime = server.Generic
			}
		}
		workloads = append(workloads, w)
	}
	return workloads, nil
}

// addTransformerArgs gives the first container of a transformer the args
// KServe's controller adds to it, each unless an arg starts with its flag
// (CustomTransformer.GetContainer in pkg/apis/serving/v1beta1/
// transformer_custom.go, utils.IncludesArg): --model_name, the
// InferenceService's name; --predictor_host, the predictor's Service in
// the namespace (constants.PredictorServiceName, with spec.predictor.name
// when set), which under ModelMesh comes from the predictor's status and
// is left out; --http_port 8080; --workers, the component's
// containerConcurrency when set.
func addTransformerArgs(o *Object, c *corev1.Container, transformer map[string]any) {
	includes := func(flag string) bool {
		return slices.ContainsFunc(c.Args, func(arg string) bool { return strings.HasPrefix(arg, flag) })
	}
	if !includes("--model_name") {
		c.Args = append(c.Args, "--model_name", o.Name)
	}
	mode, _ := o.Lookup("metadata", "annotations", "serving.kserve.io/deploymentMode")
	if !includes("--predictor_host") && mode != "ModelMesh" {
		service := o.Name + "-predictor"
		if name, _ := o.Lookup("spec", "predictor", "name"); name != nil && name != "" {
			service = fmt.Sprintf("%s-%v-predictor", o.Name, name)
		}
		namespace := o.Namespace
		if namespace == "" {
			namespace = "default"
		}
		c.Args = append(c.Args, "--predictor_host", service+"."+namespace)
	}
	if !includes("--http_port") {
		c.Args = append(c.Args, "--http_port", "8080")
	}
	if concurrency, ok := transformer["containerConcurrency"].(int64); ok && !includes("--workers") {
		c.Args = append(c.Args, "--workers", strconv.FormatInt(concurrency, 10))
	}
}

// kserveServedContainer is the container of a custom predictor
// (spec.predictor.containers) that serves the model, nil when there is
// none: KServe names containers[0] kserve-container when it is the only one
// or has no name (CustomPredictor.Default), gives the container of that name
// its default readiness probe and routes the predictor's Service to
// containers[0] (its first port, else 8080).
func kserveServedContainer(w *Workload) *Container {
	var first *Container
	for _, c := range w.Containers {
		switch {
		case c.Init:
		case c.Name == "kserve-container":
			return c
		case first == nil:
			first = c
		}
	}
	return first
}

// hasShorthand reports whether a KServe component names its model with a
// shorthand (model:, sklearn: …), whose container serves it.
func hasShorthand(component map[string]any) bool {
	for _, shorthand := range kserveShorthands {
		if _, ok := component[shorthand]; ok {
			return true
		}
	}
	return false
}
