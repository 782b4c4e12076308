package manifest

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Seldon Core v1 runs a SeldonDeployment as the pods of its predictors'
// componentSpecs, into which its operator adds a container for every graph
// node with a prepackaged implementation (SKLEARN_SERVER, TRITON_SERVER …)
// and no container of its own, and an init container that copies the
// node's modelUri to /mnt/models. What follows is Seldon Core 1.18.2's
// operator: DefaultSeldonDeployment (apis/machinelearning.seldon.io/v1/
// defaults.go), createContainerService (controllers/
// seldondeployment_controller.go), addModelServersAndInitContainers
// (controllers/seldondeployment_prepackaged_servers.go, mlserver.go) and
// InjectModelInitializer (controllers/model_initializer_injector.go).

// seldonVersion is the Seldon Core release whose defaults are used.
const seldonVersion = "1.18.2"

// seldonImages are the images of the prepackaged servers by protocol: the
// predictor_servers of the seldon-core-operator chart's values.yaml, which
// the chart writes into the seldon-config ConfigMap.
var seldonImages = map[string]map[string]string{
	"SKLEARN_SERVER":     {"seldon": "seldonio/sklearnserver:1.18.2", "v2": "seldonio/mlserver:1.3.5-sklearn"},
	"XGBOOST_SERVER":     {"seldon": "seldonio/xgboostserver:1.18.2", "v2": "seldonio/mlserver:1.3.5-xgboost"},
	"MLFLOW_SERVER":      {"seldon": "seldonio/mlflowserver:1.18.2", "v2": "seldonio/mlserver:1.3.5-mlflow"},
	"TENSORFLOW_SERVER":  {"seldon": "seldonio/tfserving-proxy:1.18.2", "tensorflow": "tensorflow/serving:2.1.0"},
	"TRITON_SERVER":      {"v2": "nvcr.io/nvidia/tritonserver:21.08-py3"},
	"HUGGINGFACE_SERVER": {"v2": "seldonio/mlserver:1.3.5-huggingface"},
	"TEMPO_SERVER":       {"v2": "seldonio/mlserver:1.3.5-slim"},
}

// SeldonConfig is the predictor_servers of a seldon-config ConfigMap: the
// images of the prepackaged servers by implementation and protocol.
// Seldon's operator reads them from the seldon-config of its namespace and
// from nowhere else (getPredictorServerConfigs and
// getPrepackServerConfigWithRelated in operator/apis/
// machinelearning.seldon.io/v1/prepack.go): the chart's defaults are only
// what the chart writes there, so a seldon-config of the linted files
// replaces them whole, and an implementation it does not name has no
// server ("No entry in predictors map for …").
type SeldonConfig struct {
	// Object is the ConfigMap.
	Object *Object
	// images are implementation → protocol → image.
	images map[string]map[string]string
}

// SeldonConfigName is the ConfigMap Seldon Core v1's operator reads
// (ControllerConfigMapName).
const SeldonConfigName = "seldon-config"

// ReadSeldonConfig reads the predictor_servers of a seldon-config
// ConfigMap as the operator does (getPredictorServerConfigsFromMap): a
// JSON object of implementation → {protocols: {protocol: {image,
// defaultImageVersion}}}; a ConfigMap without the key names no server. The
// operator panics on JSON it cannot read; the error says why.
func ReadSeldonConfig(o *Object) (*SeldonConfig, error) {
	config := &SeldonConfig{Object: o, images: map[string]map[string]string{}}
	value, ok := o.Lookup("data", "predictor_servers")
	if !ok {
		return config, nil
	}
	text, _ := value.(string)
	var servers map[string]struct {
		Protocols map[string]struct {
			Image               string `json:"image"`
			DefaultImageVersion string `json:"defaultImageVersion"`
		} `json:"protocols"`
	}
	if err := json.Unmarshal([]byte(text), &servers); err != nil {
		return nil, fmt.Errorf("%s: data.predictor_servers: %w", o.ID(), err)
	}
	for implementation, server := range servers {
		images := map[string]string{}
		for protocol, image := range server.Protocols {
			// PrepackImageName: the version is the image's tag when set.
			images[protocol] = image.Image
			if image.DefaultImageVersion != "" {
				images[protocol] += ":" + image.DefaultImageVersion
			}
		}
		config.images[implementation] = images
	}
	return config, nil
}

// image is the image of the implementation for the deployment's protocol
// as PrepackImageName picks it: "" is seldon, v2 and kfserving stand for
// each other. known is false when the config does not name the
// implementation: the webhook then refuses a node without an image, and
// the controller fails its deployment ("Failed to get server config").
func (c *SeldonConfig) image(implementation, protocol string) (image string, known bool) {
	images, known := c.images[implementation]
	if protocol == "" {
		protocol = "seldon"
	}
	image, written := images[protocol]
	switch {
	case written:
	case protocol == "v2":
		image = images["kfserving"]
	case protocol == "kfserving":
		image = images["v2"]
	}
	return image, known
}

// seldonDefaultConfig is the seldon-config of the chart's values.
var seldonDefaultConfig = &SeldonConfig{images: seldonImages}

// mlserverRuntimes are the MLServer runtime classes Seldon names in
// MLSERVER_MODEL_IMPLEMENTATION (mlserver.go).
var mlserverRuntimes = map[string]string{
	"SKLEARN_SERVER":     "mlserver_sklearn.SKLearnModel",
	"XGBOOST_SERVER":     "mlserver_xgboost.XGBoostModel",
	"MLFLOW_SERVER":      "mlserver_mlflow.MLflowRuntime",
	"HUGGINGFACE_SERVER": "mlserver_huggingface.HuggingFaceRuntime",
	"TEMPO_SERVER":       "tempo.mlserver.InferenceRuntime",
}

// seldonExecutorUnits are the implementations Seldon's executor runs
// itself, in no container (IsPrepack is false for them).
var seldonExecutorUnits = []string{"", "SIMPLE_MODEL", "SIMPLE_ROUTER", "RANDOM_ABTEST", "AVERAGE_COMBINER",
	"UNKNOWN_IMPLEMENTATION"}

const (
	seldonModelPath          = "/mnt/models"
	seldonInitializerImage   = "seldonio/rclone-storage-initializer:" + seldonVersion
	seldonPVCVolume          = "kfserving-pvc-source"
	seldonPVCMountPath       = "/mnt/pvc"
	seldonFirstHTTPPort      = 9000
	seldonFirstGRPCPort      = 9500
	seldonTFServingGRPCPort  = 2000
	seldonTFServingHTTPPort  = 2001
	seldonTFServingContainer = "tfserving"
)

type seldonSpec struct {
	Protocol   string `json:"protocol"`
	Predictors []struct {
		Name           string     `json:"name"`
		ComponentSpecs []any      `json:"componentSpecs"`
		Graph          seldonNode `json:"graph"`
	} `json:"predictors"`
}

// seldonNode is a node of a SeldonDeployment's inference graph.
type seldonNode struct {
	Name                    string       `json:"name"`
	Implementation          string       `json:"implementation"`
	ModelURI                string       `json:"modelUri"`
	EnvSecretRefName        string       `json:"envSecretRefName"`
	StorageInitializerImage string       `json:"storageInitializerImage"`
	Children                []seldonNode `json:"children"`
	// path is the node's field path in the object.
	path string
}

// prepackaged are the nodes under n, n included, that run a prepackaged
// server, in graph order.
func (n seldonNode) prepackaged(path string) []seldonNode {
	n.path = path
	var nodes []seldonNode
	if !slices.Contains(seldonExecutorUnits, n.Implementation) {
		nodes = append(nodes, n)
	}
	for i, child := range n.Children {
		nodes = append(nodes, child.prepackaged(IndexPath(path+".children", i))...)
	}
	return nodes
}

// prepackagedServers are the prepackaged implementations of the object's
// graphs, each once.
func prepackagedServers(o *Object) []string {
	var spec seldonSpec
	if o.Decode(&spec, "spec") != nil {
		return nil
	}
	var servers []string
	for _, predictor := range spec.Predictors {
		for _, node := range predictor.Graph.prepackaged("") {
			if !slices.Contains(servers, node.Implementation) {
				servers = append(servers, node.Implementation)
			}
		}
	}
	return servers
}

// seldonDeploymentWorkloads yields the pod of every componentSpec of every
// predictor, the first with the containers Seldon adds for the graph's
// prepackaged servers; a predictor with no componentSpecs gets one, as
// DefaultSeldonDeployment gives it.
func seldonDeploymentWorkloads(o *Object) ([]*Workload, error) {
	var spec seldonSpec
	if err := o.Decode(&spec, "spec"); err != nil {
		return nil, err
	}
	var workloads []*Workload
	for p, predictor := range spec.Predictors {
		predictorPath := fmt.Sprintf("spec.predictors[%d]", p)
		var first *Workload
		for c := range predictor.ComponentSpecs {
			base := fmt.Sprintf("%s.componentSpecs[%d]", predictorPath, c)
			sub := &Object{File: o.File, Doc: o.Doc, Base: o.FullPath(base), APIVersion: o.APIVersion, Kind: o.Kind,
				Name: o.Name, Namespace: o.Namespace}
			w, err := newWorkload(sub, fmt.Sprintf("%s[%d]", predictor.Name, c), "spec", "metadata")
			if err != nil {
				return nil, err
			}
			if w == nil {
				continue
			}
			w.Object, w.SpecPath, w.TemplateMetaPath = o, base+".spec", base+".metadata"
			for _, container := range w.Containers {
				container.Path = base + "." + container.Path
			}
			w.Platform = "seldon"
			w.Lifecycle = KeptRunning
			workloads = append(workloads, w)
			if c == 0 {
				first = w
			}
		}
		nodes := predictor.Graph.prepackaged(predictorPath + ".graph")
		if len(nodes) == 0 {
			continue
		}
		if first == nil {
			base := predictorPath + ".componentSpecs[0]"
			first = &Workload{Object: o, Component: predictor.Name + "[0]", SpecPath: base + ".spec",
				TemplateMetaPath: base + ".metadata", Spec: &corev1.PodSpec{}, Platform: "seldon", Lifecycle: KeptRunning}
			workloads = append(workloads, first)
		}
		addPrepackaged(first, nodes, spec.Protocol, o.seldonConfig)
	}
	return workloads, nil
}

// UseSeldonConfig builds the pods of a SeldonDeployment again with the
// prepackaged servers of config instead of Seldon's defaults: a
// seldon-config is known only once every file is read, after the
// object's workloads were extracted. workloads are the object's, as the
// set holds them; each gets its new pod spec and containers, and keeps
// them when its typed fields are read again (Hold).
func (o *Object) UseSeldonConfig(config *SeldonConfig, workloads []*Workload) error {
	if holds := o.holds; holds != nil {
		if err := o.File.awake(); err != nil {
			return err
		}
		holds.mu.Lock()
		defer holds.mu.Unlock()
		defer func() {
			if holds.count == 0 {
				o.dropTyped()
			}
		}()
	}
	o.seldonConfig = config
	// The containers the defaults made were placed at the nodes that made
	// them, by index: the config's servers may be other containers.
	predictors := o.FullPath("spec.predictors")
	if rare := o.Doc.rare; rare != nil {
		rare.borrowed = slices.DeleteFunc(rare.borrowed, func(b borrowing) bool {
			_, under := pathUnder(b.prefix, predictors)
			return under
		})
	}
	o.retype()
	fresh, err := extractWorkloads(o)
	if err == nil && len(fresh) != len(workloads) {
		err = fmt.Errorf("%d workloads, not %d", len(fresh), len(workloads))
	}
	if err != nil {
		return fmt.Errorf("%s: %s with %s's predictor_servers: %w", o.File.Path, o.ID(), config.Object.ID(), err)
	}
	for i, w := range workloads {
		w.Spec, w.Containers = fresh[i].Spec, fresh[i].Containers
	}
	return nil
}

// addPrepackaged gives the pod the containers, init containers and volumes
// Seldon adds for the prepackaged nodes, each placed at the node that made
// Seldon add it, their images those of config (the chart's defaults when
// nil), placed at its predictor_servers. A node whose implementation and
// protocol have no image there is left out: Seldon's webhook refuses it.
func addPrepackaged(w *Workload, nodes []seldonNode, protocol string, config *SeldonConfig) {
	if config == nil {
		config = seldonDefaultConfig
	}
	written := protocol
	switch protocol {
	case "":
		protocol = "seldon"
	case "kfserving":
		protocol = "v2"
	}
	spec := w.Spec
	for i, node := range nodes {
		image, known := config.image(node.Implementation, written)
		if !known || image == "" {
			continue
		}
		imageSource := FieldSource{Object: w.Object, Path: node.path + ".implementation"}
		if config.Object != nil {
			imageSource = FieldSource{Object: config.Object, Path: "data.predictor_servers"}
		}
		http, grpc := int32(seldonFirstHTTPPort+i), int32(seldonFirstGRPCPort+i)
		index := slices.IndexFunc(spec.Containers, func(c corev1.Container) bool { return c.Name == node.Name })
		if index < 0 {
			spec.Containers = append(spec.Containers, corev1.Container{Name: node.Name})
			index = len(spec.Containers) - 1
			w.Object.borrowOnce(IndexPath(JoinPath(w.SpecPath, "containers"), index), placeAt(w.Object, node.path,
				map[string]FieldSource{".image": imageSource}))
		} else if spec.Containers[index].Image == "" {
			w.Object.borrowOnce(IndexPath(JoinPath(w.SpecPath, "containers"), index)+".image",
				placeAt(imageSource.Object, imageSource.Path, nil))
		}
		c := &spec.Containers[index]
		if c.Image == "" {
			c.Image = image
		}
		served := c // the container that reads the model
		switch {
		case node.Implementation == "TENSORFLOW_SERVER" && protocol == "seldon":
			seldonDefaults(c, http, grpc)
			c.Env = append(c.Env, corev1.EnvVar{Name: "PREDICTIVE_UNIT_PARAMETERS", Value: seldonParameters(map[string]string{
				"rest_endpoint": fmt.Sprintf("http://0.0.0.0:%d", seldonTFServingHTTPPort),
				"grpc_endpoint": fmt.Sprintf("0.0.0.0:%d", seldonTFServingGRPCPort), "model_name": node.Name})})
			sidecar := slices.IndexFunc(spec.Containers, func(c corev1.Container) bool { return c.Name == seldonTFServingContainer })
			if sidecar < 0 {
				tfServing, _ := config.image(node.Implementation, "tensorflow")
				spec.Containers = append(spec.Containers, corev1.Container{Name: seldonTFServingContainer, Image: tfServing})
				sidecar = len(spec.Containers) - 1
				w.Object.borrowOnce(IndexPath(JoinPath(w.SpecPath, "containers"), sidecar), placeAt(w.Object, node.path,
					map[string]FieldSource{".image": imageSource}))
			}
			served = &spec.Containers[sidecar]
			if served.Args == nil {
				served.Args = tfServingArgs(seldonTFServingGRPCPort, seldonTFServingHTTPPort, node.Name)
			}
		case node.Implementation == "TENSORFLOW_SERVER":
			seldonDefaults(c, http, grpc)
			if c.Args == nil {
				c.Args = tfServingArgs(grpc, http, node.Name)
			}
		case node.Implementation == "TRITON_SERVER":
			seldonDefaults(c, http, grpc)
			if c.Args == nil {
				c.Args = []string{"/opt/tritonserver/bin/tritonserver", fmt.Sprintf("--grpc-port=%d", grpc),
					fmt.Sprintf("--http-port=%d", http), "--model-repository=" + seldonModelPath, "--strict-model-config=false"}
			}
		case protocol == "v2":
			seldonDefaults(c, http, grpc)
			// getMLServerContainer swaps the probes' handler for MLServer's
			// health paths and keeps their timings.
			c.ReadinessProbe.ProbeHandler = httpHandler("/v2/health/ready")
			c.LivenessProbe.ProbeHandler = httpHandler("/v2/health/live")
			env := []corev1.EnvVar{{Name: "MLSERVER_HTTP_PORT", Value: fmt.Sprint(http)},
				{Name: "MLSERVER_GRPC_PORT", Value: fmt.Sprint(grpc)},
				{Name: "MLSERVER_MODEL_IMPLEMENTATION", Value: mlserverRuntimes[node.Implementation]},
				{Name: "MLSERVER_MODEL_NAME", Value: node.Name}}
			if node.ModelURI != "" {
				env = append(env, corev1.EnvVar{Name: "MLSERVER_MODEL_URI", Value: seldonModelPath})
			}
			addMissingEnv(c, env)
		default:
			seldonDefaults(c, http, grpc)
			addMissingEnv(c, []corev1.EnvVar{{Name: "PREDICTIVE_UNIT_PARAMETERS",
				Value: seldonParameters(map[string]string{"model_uri": seldonModelPath})}})
		}
		if node.ModelURI != "" {
			addModelInitializer(w, served, node)
		}
	}
	w.Containers = nil
	for i := range spec.InitContainers {
		w.addContainer(&spec.InitContainers[i], IndexPath(JoinPath(w.SpecPath, "initContainers"), i), true)
	}
	for i := range spec.Containers {
		w.addContainer(&spec.Containers[i], IndexPath(JoinPath(w.SpecPath, "containers"), i), false)
	}
}

// seldonDefaults are what createContainerService gives every node's
// container that lacks them: the http and grpc ports, and TCP probes on
// the http port (liveness after 60 s, readiness after 20 s).
func seldonDefaults(c *corev1.Container, http, grpc int32) {
	for _, port := range []corev1.ContainerPort{{Name: "http", ContainerPort: http, Protocol: corev1.ProtocolTCP},
		{Name: "grpc", ContainerPort: grpc, Protocol: corev1.ProtocolTCP}} {
		if !slices.ContainsFunc(c.Ports, func(p corev1.ContainerPort) bool { return p.Name == port.Name }) {
			c.Ports = append(c.Ports, port)
		}
	}
	tcp := corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromString("http")}}
	if c.LivenessProbe == nil {
		c.LivenessProbe = &corev1.Probe{ProbeHandler: tcp, InitialDelaySeconds: 60, PeriodSeconds: 5, TimeoutSeconds: 1,
			SuccessThreshold: 1, FailureThreshold: 3}
	}
	if c.ReadinessProbe == nil {
		c.ReadinessProbe = &corev1.Probe{ProbeHandler: tcp, InitialDelaySeconds: 20, PeriodSeconds: 5, TimeoutSeconds: 1,
			SuccessThreshold: 1, FailureThreshold: 3}
	}
	addMissingEnv(c, []corev1.EnvVar{{Name: "PREDICTIVE_UNIT_HTTP_SERVICE_PORT", Value: fmt.Sprint(http)},
		{Name: "PREDICTIVE_UNIT_GRPC_SERVICE_PORT", Value: fmt.Sprint(grpc)}})
}

func httpHandler(path string) corev1.ProbeHandler {
	return corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromString("http")}}
}

func tfServingArgs(grpc, http int32, model string) []string {
	return []string{fmt.Sprintf("--port=%d", grpc), fmt.Sprintf("--rest_api_port=%d", http), "--model_name=" + model,
		"--model_base_path=" + seldonModelPath}
}

// addMissingEnv adds the variables the container does not set: Seldon's
// merge keeps the user's.
func addMissingEnv(c *corev1.Container, env []corev1.EnvVar) {
	for _, variable := range env {
		if !slices.ContainsFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == variable.Name }) {
			c.Env = append(c.Env, variable)
		}
	}
}

// seldonParameters is PREDICTIVE_UNIT_PARAMETERS: the unit's parameters as
// a JSON list of name, type and value, in name order.
func seldonParameters(values map[string]string) string {
	type parameter struct {
		Name  string `json:"name"`
		Type  string `json:"type"`
		Value string `json:"value"`
	}
	var parameters []parameter
	for _, name := range slices.Sorted(maps.Keys(values)) {
		parameters = append(parameters, parameter{Name: name, Type: "STRING", Value: values[name]})
	}
	text, _ := json.Marshal(parameters)
	return string(text)
}

// addModelInitializer adds the init container that copies the node's
// modelUri into an emptyDir with rclone, mounted read-only at /mnt/models
// in the container that reads the model (InjectModelInitializer). Its
// credentials are the envSecretRefName Secret; a pvc:// claim is mounted
// at /mnt/pvc and copied from there.
func addModelInitializer(w *Workload, served *corev1.Container, node seldonNode) {
	spec := w.Spec
	name := truncate(served.Name + "-model-initializer")
	if slices.ContainsFunc(spec.InitContainers, func(c corev1.Container) bool { return c.Name == name }) {
		return
	}
	volume := truncate(served.Name + "-provision-location")
	source := node.ModelURI
	init := corev1.Container{
		Name: name, Image: seldonInitializerImage, ImagePullPolicy: corev1.PullIfNotPresent,
		VolumeMounts: []corev1.VolumeMount{{Name: volume, MountPath: seldonModelPath}},
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"),
				corev1.ResourceMemory: resource.MustParse("100Mi")},
			Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"),
				corev1.ResourceMemory: resource.MustParse("1Gi")},
		},
	}
	if node.StorageInitializerImage != "" {
		init.Image = node.StorageInitializerImage
	}
	if claim, ok := strings.CutPrefix(source, "pvc://"); ok {
		claimName, subPath, _ := strings.Cut(claim, "/")
		source = seldonPVCMountPath + "/" + subPath
		if !slices.ContainsFunc(spec.Volumes, func(v corev1.Volume) bool { return v.Name == seldonPVCVolume }) {
			spec.Volumes = append(spec.Volumes, corev1.Volume{Name: seldonPVCVolume, VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claimName, ReadOnly: true}}})
			w.Object.borrowOnce(IndexPath(JoinPath(w.SpecPath, "volumes"), len(spec.Volumes)-1),
				placeAt(w.Object, node.path+".modelUri", nil))
		}
		pvcMount := corev1.VolumeMount{Name: seldonPVCVolume, MountPath: seldonPVCMountPath, ReadOnly: true}
		init.VolumeMounts = append(init.VolumeMounts, pvcMount)
		served.VolumeMounts = append(served.VolumeMounts, pvcMount)
	}
	init.Args = []string{source, seldonModelPath}
	envFromPath := node.path + ".modelUri"
	if node.EnvSecretRefName != "" {
		init.EnvFrom = []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: node.EnvSecretRefName}}}}
		envFromPath = node.path + ".envSecretRefName"
	}
	spec.InitContainers = append(spec.InitContainers, init)
	w.Object.borrowOnce(IndexPath(JoinPath(w.SpecPath, "initContainers"), len(spec.InitContainers)-1),
		placeAt(w.Object, node.path+".modelUri",
			map[string]FieldSource{".envFrom": {Object: w.Object, Path: envFromPath}}))
	spec.Volumes = append(spec.Volumes, corev1.Volume{Name: volume, VolumeSource: corev1.VolumeSource{
		EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	w.Object.borrowOnce(IndexPath(JoinPath(w.SpecPath, "volumes"), len(spec.Volumes)-1),
		placeAt(w.Object, node.path+".modelUri", nil))
	served.VolumeMounts = append(served.VolumeMounts, corev1.VolumeMount{Name: volume, MountPath: seldonModelPath,
		ReadOnly: true})
}

// truncate cuts a name Seldon makes to the 63 characters of a DNS label.
func truncate(name string) string {
	if len(name) > 63 {
		return name[:63]
	}
	return name
}
