package lint

import (
	"github.com/modellint/modellint/lint/config"
)

// The run's settings are lint/config's types; the engine names them here
// so that rules read lint.Config as they read every other engine value.
type (
	Config         = config.Config
	ModelMapping   = config.ModelMapping
	EstimateConfig = config.EstimateConfig
	ClusterConfig  = config.ClusterConfig
	ImageMapping   = config.ImageMapping
	RuleConfig     = config.RuleConfig
)
