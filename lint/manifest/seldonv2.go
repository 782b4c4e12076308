package manifest

// Seldon Core v2 places each Model on the pods of a Server: its scheduler
// keeps the Servers whose capabilities include every requirement of the
// Model and whose replicas have the memory it asks for
// (scheduler/pkg/scheduler/filters: ServerRequirementFilter,
// SharingServerFilter, AvailableMemoryReplicaFilter, ExplainerFilter). A
// Model has no pod of its own: its workload holds these facts, and no
// containers.

// SeldonModel is what Seldon's scheduler places a Model by.
type SeldonModel struct {
	// Requirements are the capabilities a Server must advertise: the
	// Model's spec.requirements, its spec.modelType (which Seldon's
	// operator adds to them, Model.AsSchedulerModel) and alibi-explain for
	// an explainer (ExplainerFilter).
	Requirements []SeldonRequirement
	// Server is spec.server, the Server the Model is pinned to, "" when
	// the scheduler may pick any.
	Server, ServerPath string
	// MemoryBytes is spec.memory, 0 when not written; the scheduler
	// reserves that much of a replica's memory for each copy.
	MemoryBytes int64
	MemoryPath  string
	// SecretName is spec.secretName, the Secret holding the rclone config
	// the agent downloads storageUri with, "" when not written.
	SecretName, SecretPath string
	// Servers are the Seldon Servers of the linted files in the Model's
	// namespace, as their pods were composed.
	Servers []*SeldonServer
}

// SeldonRequirement is one capability a Model needs, and the field that
// makes it need it.
type SeldonRequirement struct {
	Capability string
	Path       string
}

// SeldonServer is what a Server offers the Models placed on it.
type SeldonServer struct {
	Object *Object
	// Capabilities are what its agent advertises
	// (SELDON_SERVER_CAPABILITIES, with the Server's spec.capabilities in
	// place of the ServerConfig's or its spec.extraCapabilities after
	// them); nil when not known (its ServerConfig is not in the linted
	// files).
	Capabilities []string
	// CapabilitiesPath is the field of the Server that sets them, or that
	// names the ServerConfig that does.
	CapabilitiesPath string
	// MemoryBytes is the memory its agent offers each replica's models:
	// the server container's memory request (MEMORY_REQUEST) plus the
	// SELDON_OVERCOMMIT_PERCENTAGE on top, 0 when not known.
	MemoryBytes int64
	// MemoryRequestBytes and MemoryLimitBytes are the server container's,
	// 0 when not set; OverCommitPercent is the agent's.
	MemoryRequestBytes, MemoryLimitBytes int64
	OverCommitPercent                    int64
	// ServerContainer names the container whose memory the agent counts.
	ServerContainer string
	// MemoryPath is the field of the Server that sets the container's
	// memory, or names the ServerConfig that does.
	MemoryPath string
	// Assumed says the pod was built from the ServerConfig Seldon's chart
	// installs by default, which an install may change.
	Assumed bool
}
