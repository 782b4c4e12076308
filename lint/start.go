package lint

// StartEstimate is how a model-server container is expected to start, as
// the rule that judges its probes against its model's load (MDL402)
// estimates it: the image pull, the server's start-up, the load, and the
// probes that restart or admit it. The rule records it with
// Pass.EstimateStart; reports draw it and never derive it again.
type StartEstimate struct {
	// Target is the workload, as Target.Name writes it.
	Target    string
	Container string
	// Model names what the server loads: the model dir, with the resident
	// versions or "weights" when that is what was counted.
	Model      string
	ModelBytes int64
	// LoadSeconds is the estimate from the container's start to the model
	// loaded: StartupSeconds, then ModelBytes at LoadMiBPerSecond, then
	// ThrottledSeconds that a CPU limit below one core (CPULimit) adds.
	LoadSeconds      float64
	StartupSeconds   float64
	LoadMiBPerSecond float64
	ThrottledSeconds float64
	CPULimit         string
	// PullSeconds is the image's stored bytes (ImageBytes) at
	// PullMiBPerSecond, before the container starts; 0 when the image
	// was not read.
	PullSeconds      float64
	ImageBytes       int64
	PullMiBPerSecond float64
	// Probes are the container's startupProbe, livenessProbe and
	// readinessProbe, in that order, those it has.
	Probes []ProbeTiming
	// MinStartupSeconds is the least a model server is given to start
	// (probes.minStartupSeconds), which a livenessProbe without a
	// startupProbe must allow (MDL203); 0 when not recorded.
	MinStartupSeconds int32
}

// ProbeTiming is one probe's timing, defaults filled in.
type ProbeTiming struct {
	Kind                string // startupProbe, livenessProbe or readinessProbe
	InitialDelaySeconds int32
	PeriodSeconds       int32
	FailureThreshold    int32
}

// Budget is initialDelaySeconds + periodSeconds × failureThreshold: how
// long a startup (or, without one, liveness) probe lets a container start
// before the kubelet restarts it.
func (p ProbeTiming) Budget() int32 {
	return p.InitialDelaySeconds + p.PeriodSeconds*p.FailureThreshold
}

// EstimateStart records how a container of the target is expected to
// start (see StartEstimate); the run lists it in Result.Starts.
func (p *Pass) EstimateStart(estimate StartEstimate) {
	if p.Target == nil {
		return
	}
	estimate.Target = p.Target.Name()
	p.Target.Starts = append(p.Target.Starts, estimate)
}
