package config

// Effective is the config a run uses: the file's settings with the
// defaults in force filled in where it leaves them unset, as `modellint
// config` prints it.
func (c *Config) Effective() Config {
	effective := *c
	if effective.FailOn == "" {
		effective.FailOn = "error"
	}
	effective.EstimateSettings = c.Estimates()
	effective.Probes.MinStartupSeconds = c.MinStartupSeconds()
	effective.Cluster.GPUResource = c.GPUResourceName()
	return effective
}
