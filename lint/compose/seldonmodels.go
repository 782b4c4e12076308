package compose

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/modellint/modellint/lint/manifest"
)

// What Seldon Core v2's agent reads from its env (scheduler/cmd/agent/cli
// in SeldonIO/seldon-core v2.10.2).
const (
	capabilitiesEnv  = "SELDON_SERVER_CAPABILITIES"
	memoryRequestEnv = "MEMORY_REQUEST"
	overCommitEnv    = "SELDON_OVERCOMMIT_PERCENTAGE"
)

// ownCapabilities are a Server's spec.capabilities, which replace its
// ServerConfig's; nil when it writes none.
func ownCapabilities(server *manifest.Object) []string {
	var capabilities []string
	if server.Decode(&capabilities, "spec", "capabilities") != nil {
		return nil
	}
	return trimmed(capabilities)
}

// offered records what a Server's composed pod offers the Models placed on
// it, after giving its agent the Server's capabilities as Seldon's
// operator does (updateCapabilities in operator/controllers/reconcilers/
// server/server_reconciler.go): in every container that sets
// SELDON_SERVER_CAPABILITIES, spec.capabilities replace its value, else
// spec.extraCapabilities are appended to it. The value is placed on the
// Server's field that wrote it.
func offered(server *manifest.Object, spec *corev1.PodSpec, facts *manifest.SeldonServer) {
	var extra []string
	_ = server.Decode(&extra, "spec", "extraCapabilities")
	own := ownCapabilities(server)
	agent := -1
	for i := range spec.Containers {
		container := &spec.Containers[i]
		index := slices.IndexFunc(container.Env, func(e corev1.EnvVar) bool { return e.Name == capabilitiesEnv })
		if index < 0 {
			continue
		}
		field := manifest.IndexPath(manifest.IndexPath(podSpecPath+".containers", i)+".env", index) + ".value"
		switch {
		case len(own) > 0:
			container.Env[index].Value = strings.Join(own, ",")
			server.Borrow(field, writtenAt(manifest.FieldSource{Object: server, Path: "spec.capabilities"}))
			facts.CapabilitiesPath = "spec.capabilities"
		case len(extra) > 0:
			container.Env[index].Value += "," + strings.Join(extra, ",")
			server.Borrow(field, writtenAt(manifest.FieldSource{Object: server, Path: "spec.extraCapabilities"}))
			facts.CapabilitiesPath = "spec.extraCapabilities"
		default:
			facts.CapabilitiesPath = field
		}
		if agent < 0 {
			agent = i
		}
	}
	if agent < 0 || slices.ContainsFunc(spec.Containers[agent].Args, func(arg string) bool {
		return strings.HasPrefix(arg, "--capabilities") || strings.HasPrefix(arg, "--memory-bytes") ||
			strings.HasPrefix(arg, "--over-commit-percentage")
	}) {
		return // flags the agent prefers to its env: not read here
	}
	defer func() {
		// The Server is the related location of what a Model is judged
		// against: the field of it that names the ServerConfig when the
		// ServerConfig wrote the value.
		for _, path := range []*string{&facts.CapabilitiesPath, &facts.MemoryPath} {
			if _, ok := server.WrittenBy(*path); ok && *path != "" {
				*path = "spec.serverConfig"
			}
		}
	}()
	env := spec.Containers[agent].Env
	for _, variable := range env {
		if variable.Name == capabilitiesEnv && variable.ValueFrom == nil {
			// The agent splits the list on commas and trims each entry.
			facts.Capabilities = trimmed(strings.Split(variable.Value, ","))
		}
	}
	agentMemory(spec, env, facts)
}

// agentMemory reads the memory the agent offers its models: MEMORY_REQUEST,
// in the chart's ServerConfigs the server container's requests.memory (a
// resourceFieldRef), with SELDON_OVERCOMMIT_PERCENTAGE on top
// (LocalStateManager.GetAvailableMemoryBytesWithOverCommit).
func agentMemory(spec *corev1.PodSpec, env []corev1.EnvVar, facts *manifest.SeldonServer) {
	for _, variable := range env {
		switch {
		case variable.Name == overCommitEnv && variable.ValueFrom == nil:
			if percent, err := strconv.ParseUint(variable.Value, 10, 32); err == nil {
				facts.OverCommitPercent = int64(percent)
			}
		case variable.Name == memoryRequestEnv && variable.ValueFrom != nil && variable.ValueFrom.ResourceFieldRef != nil:
			ref := variable.ValueFrom.ResourceFieldRef
			index := slices.IndexFunc(spec.Containers, func(c corev1.Container) bool { return c.Name == ref.ContainerName })
			if index < 0 || ref.Resource != "requests.memory" {
				continue
			}
			resources := spec.Containers[index].Resources
			facts.ServerContainer = ref.ContainerName
			facts.MemoryPath = manifest.IndexPath(podSpecPath+".containers", index) + ".resources"
			if limit, ok := resources.Limits[corev1.ResourceMemory]; ok {
				facts.MemoryLimitBytes = limit.Value()
			}
			// A request left out is the limit, as the API server defaults it.
			facts.MemoryRequestBytes = facts.MemoryLimitBytes
			if request, ok := resources.Requests[corev1.ResourceMemory]; ok {
				facts.MemoryRequestBytes = request.Value()
			}
		}
	}
	if facts.MemoryRequestBytes > 0 {
		facts.MemoryBytes = facts.MemoryRequestBytes + facts.MemoryRequestBytes*facts.OverCommitPercent/100
	}
}

func trimmed(words []string) []string {
	var kept []string
	for _, word := range words {
		kept = append(kept, strings.TrimSpace(word))
	}
	return kept
}

// models adds a workload without containers for each Seldon Model of the
// set, holding what Seldon's scheduler places it by and the Servers of its
// namespace it may be placed on.
func (s *seldon) models() {
	for _, model := range s.set.OfKinds("Model") {
		if model.Group() != seldonGroup || s.rejected[model] {
			continue
		}
		facts, err := readSeldonModel(model)
		if err != nil {
			continue // the API server rejects it: reported as MDL002
		}
		for _, server := range s.set.OfKindsIn(model.Namespace, "Server") {
			if offered := s.servers[server]; offered != nil {
				facts.Servers = append(facts.Servers, offered)
			}
		}
		s.set.AddWorkload(&manifest.Workload{Object: model, SpecPath: "spec", Spec: &corev1.PodSpec{},
			Platform: "seldon", Lifecycle: manifest.KeptRunning, SeldonModel: facts})
	}
}

// readSeldonModel reads what Seldon's scheduler places a Model by
// (operator/apis/mlops/v1alpha1/model_types.go, Model.AsSchedulerModel).
func readSeldonModel(model *manifest.Object) (*manifest.SeldonModel, error) {
	var spec struct {
		Requirements []string           `json:"requirements"`
		ModelType    *string            `json:"modelType"`
		Memory       *resource.Quantity `json:"memory"`
		Server       *string            `json:"server"`
		Explainer    any                `json:"explainer"`
		SecretName   *string            `json:"secretName"`
	}
	if err := model.Decode(&spec, "spec"); err != nil {
		return nil, fmt.Errorf("%s: %w", model.ID(), err)
	}
	facts := &manifest.SeldonModel{}
	for i, requirement := range spec.Requirements {
		facts.Requirements = append(facts.Requirements, manifest.SeldonRequirement{
			Capability: strings.TrimSpace(requirement), Path: manifest.IndexPath("spec.requirements", i)})
	}
	if spec.ModelType != nil && *spec.ModelType != "" {
		facts.Requirements = append(facts.Requirements, manifest.SeldonRequirement{Capability: *spec.ModelType,
			Path: "spec.modelType"})
	}
	if spec.Explainer != nil {
		facts.Requirements = append(facts.Requirements, manifest.SeldonRequirement{Capability: "alibi-explain",
			Path: "spec.explainer"})
	}
	if spec.Server != nil {
		facts.Server, facts.ServerPath = *spec.Server, "spec.server"
	}
	if spec.SecretName != nil && *spec.SecretName != "" {
		facts.SecretName, facts.SecretPath = *spec.SecretName, "spec.secretName"
	}
	if spec.Memory != nil {
		facts.MemoryBytes, facts.MemoryPath = spec.Memory.Value(), "spec.memory"
	}
	return facts, nil
}
