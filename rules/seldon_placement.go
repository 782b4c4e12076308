package rules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
)

// Where Seldon Core v2 places a Model: the scheduler's filters, in
// scheduler/pkg/scheduler/filters of SeldonIO/seldon-core v2.10.2.

var modelUnschedulable = &lint.Rule{
	ID: "MDL221", Name: "model-unschedulable", Severity: lint.Error,
	Artifact: lint.ArtifactManifest, Needs: []lint.Fact{lint.FactManifest},
	Doc: lint.Doc{
		Summary: "A Seldon Core v2 Model needs a capability or more memory than the Server it is pinned to offers, or than any Server of its namespace does.",
		Why: "Seldon's scheduler loads a Model on a Server whose agent advertises every entry of the Model's " +
			"spec.requirements, its spec.modelType and, for an explainer, alibi-explain (ServerRequirementFilter, " +
			"ExplainerFilter); spec.server pins the Server by name (SharingServerFilter); and a replica takes it only " +
			"when its free memory, the server container's memory request plus SELDON_OVERCOMMIT_PERCENTAGE, holds " +
			"spec.memory (AvailableMemoryReplicaFilter). A Model no Server passes is never loaded: the scheduler logs " +
			"\"Failed to schedule model as no matching servers are available\" and the Model stays not Ready, while " +
			"every pod looks healthy. A Server's capabilities are its ServerConfig's SELDON_SERVER_CAPABILITIES (the " +
			"mlserver and triton ServerConfigs of Seldon's chart list their runtimes), replaced by its " +
			"spec.capabilities or extended by its spec.extraCapabilities. A Model whose memory fits only through the " +
			"overcommit, above the server container's memory limit, is loaded but can get the server OOMKilled (a " +
			"warning). A Model pinned to a Server of the linted files is checked against it; one that is not pinned " +
			"is reported (info) only when no Server of its namespace in the linted files can take it, as a Server " +
			"installed elsewhere may. What a Server built on the ServerConfig Seldon's chart installs by default " +
			"offers is a warning: an install may change it.",
		Bad: `apiVersion: mlops.seldon.io/v1alpha1
kind: Model
metadata: {name: income-lgbm, namespace: seldon-mesh}
spec:
  storageUri: gs://models/income-lgbm
  requirements: [lightgbm]
  server: triton
---
apiVersion: mlops.seldon.io/v1alpha1
kind: Server
metadata: {name: triton, namespace: seldon-mesh}
spec:
  serverConfig: triton`,
		Good: `apiVersion: mlops.seldon.io/v1alpha1
kind: Model
metadata: {name: income-lgbm, namespace: seldon-mesh}
spec:
  storageUri: gs://models/income-lgbm
  requirements: [lightgbm]
  server: mlserver
---
apiVersion: mlops.seldon.io/v1alpha1
kind: Server
metadata: {name: mlserver, namespace: seldon-mesh}
spec:
  serverConfig: mlserver`,
		Fix: "Pin the Model to a Server that has the capability (mlserver for the Python runtimes, triton for onnx, " +
			"tensorflow, pytorch …), add it to the Server's spec.extraCapabilities when its image has the runtime, fix " +
			"a misspelt requirement, or give the server container the memory the Model asks for.",
		References: []string{
			"https://docs.seldon.ai/seldon-core-2/user-guide/kubernetes/servers",
			"https://docs.seldon.ai/seldon-core-2/user-guide/models/scheduling",
			"https://github.com/SeldonIO/seldon-core/tree/v2/scheduler/pkg/scheduler/filters",
			"https://github.com/SeldonIO/seldon-core/blob/v2/operator/apis/mlops/v1alpha1/model_types.go",
		},
	},
	Check: checkModelPlacement,
}

func checkModelPlacement(pass *lint.Pass) {
	w := pass.Workload()
	model := w.SeldonModel
	if model == nil {
		pass.Skip("not a Seldon Core v2 Model")
		return
	}
	if model.Server != "" {
		index := slices.IndexFunc(model.Servers, func(s *manifest.SeldonServer) bool { return s.Object.Name == model.Server })
		if index < 0 {
			pass.Skip(fmt.Sprintf("Server %q is not in the linted files", model.Server))
			return
		}
		checkPinnedServer(pass, model, model.Servers[index])
		return
	}
	checkAnyServer(pass, model)
}

// checkPinnedServer judges a Model against the Server spec.server names.
func checkPinnedServer(pass *lint.Pass, model *manifest.SeldonModel, server *manifest.SeldonServer) {
	severity, assumed := pass.Rule.Severity, ""
	if server.Assumed {
		severity = min(severity, lint.Warning)
		assumed = " (as the ServerConfig Seldon's chart installs sets it up; an install may change it)"
	}
	checked := false
	if server.Capabilities != nil {
		checked = true
		for _, requirement := range model.Requirements {
			if slices.Contains(server.Capabilities, requirement.Capability) {
				continue
			}
			pass.Report(lint.Diagnostic{Severity: severity, Path: requirement.Path, NeverReady: severity == lint.Error,
				Cause: &lint.Cause{Object: server.Object, Path: server.CapabilitiesPath,
					Message: "what Server " + server.Object.Name + " advertises"},
				Message: fmt.Sprintf("the Model %s, but Server %q, which spec.server pins it to, does not advertise %q "+
					"(its agent advertises %s%s): Seldon's scheduler loads the model on no server (\"Failed to schedule "+
					"model as no matching servers are available\") and it never becomes Ready; pin a Server that has it, "+
					"add %q to the Server's spec.extraCapabilities if its image has the runtime, or fix the requirement",
					needs(requirement), server.Object.Name, requirement.Capability, strings.Join(server.Capabilities, ","),
					assumed, requirement.Capability)})
		}
	}
	if model.MemoryBytes == 0 || server.MemoryBytes == 0 {
		if !checked {
			pass.Skip(fmt.Sprintf("what Server %q offers is not known: its ServerConfig is not in the linted files", server.Object.Name))
		}
		return
	}
	memory := memoryCause(server)
	switch {
	case model.MemoryBytes > server.MemoryBytes:
		pass.Report(lint.Diagnostic{Severity: severity, Path: model.MemoryPath, NeverReady: severity == lint.Error, Cause: memory,
			Message: fmt.Sprintf("the Model asks for %s of memory, but each replica of Server %q offers %s (its %s "+
				"container's memory request %s plus SELDON_OVERCOMMIT_PERCENTAGE %d%%%s): Seldon's scheduler loads the model "+
				"on no replica (\"Failed to schedule model as no matching servers are available\") and it never becomes "+
				"Ready; raise the %s container's memory request and limit to at least %s, or lower spec.memory",
				humanBytes(model.MemoryBytes), server.Object.Name, humanBytes(server.MemoryBytes), server.ServerContainer,
				humanBytes(server.MemoryRequestBytes), server.OverCommitPercent, assumed, server.ServerContainer,
				humanBytes(model.MemoryBytes))})
	case server.MemoryLimitBytes > 0 && model.MemoryBytes > server.MemoryLimitBytes:
		pass.Report(lint.Diagnostic{Severity: min(severity, lint.Warning), Path: model.MemoryPath, Cause: memory,
			Message: fmt.Sprintf("the Model asks for %s of memory, above the %s memory limit of Server %q's %s container: "+
				"Seldon's agent takes it, counting SELDON_OVERCOMMIT_PERCENTAGE %d%% over the request %s, but the server "+
				"that loads it can be OOMKilled (exit 137), unloading every model of the replica; raise the container's "+
				"memory limit to at least %s plus the server's own memory, or lower spec.memory",
				humanBytes(model.MemoryBytes), humanBytes(server.MemoryLimitBytes), server.Object.Name, server.ServerContainer,
				server.OverCommitPercent, humanBytes(server.MemoryRequestBytes), humanBytes(model.MemoryBytes))})
	}
}

// checkAnyServer reports a Model no Server of its namespace in the linted
// files can take; a Server installed elsewhere may, so it is info.
func checkAnyServer(pass *lint.Pass, model *manifest.SeldonModel) {
	if len(model.Servers) == 0 {
		pass.Skip("no Seldon Server of the Model's namespace is in the linted files")
		return
	}
	var reasons []string
	path := ""
	for _, server := range model.Servers {
		if server.Capabilities == nil {
			pass.Skip(fmt.Sprintf("what Server %q offers is not known: its ServerConfig is not in the linted files", server.Object.Name))
			return
		}
		reason, at := refusal(model, server)
		if reason == "" {
			return
		}
		if path == "" {
			path = at
		}
		reasons = append(reasons, reason)
	}
	pass.Report(lint.Diagnostic{Severity: lint.Info, Path: path,
		Message: fmt.Sprintf("no Seldon Server of the linted files in the Model's namespace can take it (%s): unless a "+
			"Server installed elsewhere can, Seldon's scheduler never loads it (\"Failed to schedule model as no matching "+
			"servers are available\"); fix the requirements, or add a Server that has them", strings.Join(reasons, "; "))})
}

// refusal says why Seldon's scheduler passes over the Server for the Model,
// and the Model's field that makes it; "" when it does not.
func refusal(model *manifest.SeldonModel, server *manifest.SeldonServer) (string, string) {
	for _, requirement := range model.Requirements {
		if !slices.Contains(server.Capabilities, requirement.Capability) {
			return fmt.Sprintf("Server %q does not advertise %q", server.Object.Name, requirement.Capability), requirement.Path
		}
	}
	if model.MemoryBytes > 0 && server.MemoryBytes > 0 && model.MemoryBytes > server.MemoryBytes {
		return fmt.Sprintf("Server %q offers each replica %s of memory, below the Model's %s", server.Object.Name,
			humanBytes(server.MemoryBytes), humanBytes(model.MemoryBytes)), model.MemoryPath
	}
	return "", ""
}

// needs says what makes the Model need a capability.
func needs(requirement manifest.SeldonRequirement) string {
	switch requirement.Path {
	case "spec.modelType":
		return "is of modelType " + strconv.Quote(requirement.Capability) + ", which it requires"
	case "spec.explainer":
		return "is an explainer, which requires \"alibi-explain\""
	}
	return "requires " + strconv.Quote(requirement.Capability)
}

func memoryCause(server *manifest.SeldonServer) *lint.Cause {
	if server.MemoryPath == "" {
		return nil
	}
	return &lint.Cause{Object: server.Object, Path: server.MemoryPath,
		Message: "the memory of Server " + server.Object.Name + "'s " + server.ServerContainer + " container"}
}
