package config

// EstimateConfig tunes how model bytes turn into memory need and load time.
// Every field has a documented default; `modellint explain MDL401` prints
// the formula.
type EstimateConfig struct {
	// MemoryFactor multiplies model bytes (default 1.2: TF Serving reserves
	// 1.2× the version dir's bytes before it loads a version).
	MemoryFactor float64 `json:"memoryFactor,omitempty"`
	// BaselineMiB is the server process without a model (default 256).
	BaselineMiB int64 `json:"baselineMiB,omitempty"`
	// LoadMiBPerSecond is how fast a model loads from its volume (default 100).
	LoadMiBPerSecond float64 `json:"loadMiBPerSecond,omitempty"`
	// StartupSeconds is the server's start-up before it reads the model (default 10).
	StartupSeconds float64 `json:"startupSeconds,omitempty"`
	// DownloadMiBPerSecond is how fast a server downloads its model from a
	// model hub at start (default 100).
	DownloadMiBPerSecond float64 `json:"downloadMiBPerSecond,omitempty"`
}

// Defaults of EstimateConfig.
const (
	DefaultMemoryFactor     = 1.2
	DefaultBaselineMiB      = 256
	DefaultLoadMiBPerSecond = 100
	DefaultStartupSeconds   = 10
	// DefaultDownloadMiBPerSecond is a Hugging Face Hub download to a cloud node.
	DefaultDownloadMiBPerSecond = 100
)

// Estimates returns the config's estimate settings with defaults filled in.
func (c *Config) Estimates() EstimateConfig {
	e := c.EstimateSettings
	if e.MemoryFactor <= 0 {
		e.MemoryFactor = DefaultMemoryFactor
	}
	if e.BaselineMiB <= 0 {
		e.BaselineMiB = DefaultBaselineMiB
	}
	if e.LoadMiBPerSecond <= 0 {
		e.LoadMiBPerSecond = DefaultLoadMiBPerSecond
	}
	if e.StartupSeconds <= 0 {
		e.StartupSeconds = DefaultStartupSeconds
	}
	if e.DownloadMiBPerSecond <= 0 {
		e.DownloadMiBPerSecond = DefaultDownloadMiBPerSecond
	}
	return e
}
