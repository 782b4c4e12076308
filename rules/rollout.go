package rules

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/modellint/modellint/internal/lazyregexp"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
)

// Kubernetes' controller defaults.
const (
	defaultProgressDeadlineSeconds = 600
	defaultMaxUnavailablePercent   = "25%"
)

// fewReplicas is the replica count at or below which a rollout that takes a
// pod away before its replacement is Ready removes a large share (half or
// all) of the serving capacity for a whole model load.
const fewReplicas = 2

var rolloutUnsafe = &lint.Rule{
	ID: "MDL207", Name: "rollout-unsafe", Severity: lint.Warning,
	Artifact: lint.ArtifactManifest, Needs: []lint.Fact{lint.FactManifest}, Fixes: lint.FixSafe,
	Doc: lint.Doc{
		Summary: "A model server's rollout can take serving capacity down before new pods have loaded the model.",
		Why: "A new model-server pod needs its whole model load time before it can serve. A rolling update that removes " +
			"old pods first leaves that gap uncovered. Reported for Deployments, StatefulSets and Argo Rollouts running a " +
			"model server when: maxUnavailable (resolved against the replicas as Kubernetes does, rounding down; default 25%) " +
			"is at least 1 with 2 or fewer replicas, or at least the replica count (replicas come from an " +
			"HorizontalPodAutoscaler's minReplicas when one targets the workload); the strategy is Recreate (every pod goes " +
			"first), unless the pod mounts a ReadWriteOnce claim from the linted files, where a surge pod could not attach it; " +
			"a StatefulSet has a single replica (it deletes a pod before recreating it); progressDeadlineSeconds (default 600) is shorter than the time the startupProbe " +
			"(else the livenessProbe) allows a pod to start, so the rollout is marked failed (ProgressDeadlineExceeded, and CD " +
			"tools abort or roll back) while the model is still loading. InferenceServices are not reported: Knative shifts " +
			"traffic only to a ready revision. A pod with no readinessProbe counts as available the moment it starts, " +
			"which is MDL201's finding (one finding per cause).",
		Bad: `kind: Deployment
spec:
  replicas: 1
  strategy:
    rollingUpdate:
      maxUnavailable: 1`,
		Good: `kind: Deployment
spec:
  replicas: 1
  strategy:
    rollingUpdate:
      maxUnavailable: 0
      maxSurge: 1`,
		Fix: "Use RollingUpdate with maxUnavailable: 0 and maxSurge: 1 (the cluster needs room, including a GPU, for one " +
			"extra pod), gate readiness on the model, and set progressDeadlineSeconds above the startup budget.",
		References: []string{
			"https://kubernetes.io/docs/concepts/workloads/controllers/deployment/#rolling-update-deployment",
			"https://kubernetes.io/docs/concepts/workloads/controllers/deployment/#progress-deadline-seconds",
			"https://kubernetes.io/docs/concepts/workloads/controllers/statefulset/#rolling-updates",
			"https://argo-rollouts.readthedocs.io/en/stable/features/canary/",
		},
	},
	Check: checkRollout,
}

func checkRollout(pass *lint.Pass) {
	w := pass.Workload()
	if w.Deployment == nil && w.StatefulSet == nil && w.Rollout == nil && w.RollingUpdate == nil {
		pass.Skip("not a Deployment, StatefulSet, Argo Rollout or a kind that rolls pods like them (LeaderWorkerSet, LLMInferenceService)")
		return
	}
	serving := servingContainers(pass)
	if len(serving) == 0 {
		return
	}
	replicas, replicasFrom := effectiveReplicas(pass)
	if replicas == 0 {
		pass.Skip("scaled to zero")
		return
	}
	switch {
	case w.RollingUpdate != nil:
		rolling := w.RollingUpdate
		checkMaxUnavailable(pass, rolling.Path+".maxUnavailable", rolling.MaxUnavailable, rolling.DefaultMaxUnavailable, replicas, replicasFrom,
			func() *lint.Fix {
				return fixMaxUnavailable(pass, rolling.Path, rolling.MaxUnavailable, rolling.MaxSurge, rolling.DefaultMaxSurge, replicas)
			})
	case w.Deployment != nil:
		spec := w.Deployment.Spec
		switch spec.Strategy.Type {
		case appsv1.RecreateDeploymentStrategyType:
			if !mountsReadWriteOnceClaim(pass) {
				pass.Reportf("spec.strategy.type",
					"strategy Recreate stops every model-server pod before starting new ones: the model is unavailable for the whole "+
						"load time of each rollout; use RollingUpdate with maxUnavailable: 0 and maxSurge: 1 (the cluster needs room, "+
						"including a GPU if it uses one, for one extra pod)")
			}
		default:
			var maxUnavailable, maxSurge *intstr.IntOrString
			if spec.Strategy.RollingUpdate != nil {
				maxUnavailable, maxSurge = spec.Strategy.RollingUpdate.MaxUnavailable, spec.Strategy.RollingUpdate.MaxSurge
			}
			checkMaxUnavailable(pass, "spec.strategy.rollingUpdate.maxUnavailable", maxUnavailable, intstr.FromString(defaultMaxUnavailablePercent), replicas, replicasFrom,
				func() *lint.Fix {
					return fixMaxUnavailable(pass, "spec.strategy.rollingUpdate", maxUnavailable, maxSurge, intstr.FromString(defaultMaxUnavailablePercent), replicas)
				})
		}
		checkProgressDeadline(pass, serving, spec.ProgressDeadlineSeconds)
	case w.StatefulSet != nil:
		spec := w.StatefulSet.Spec
		if spec.UpdateStrategy.Type != appsv1.OnDeleteStatefulSetStrategyType {
			maxUnavailable := intstr.FromInt32(1)
			if spec.UpdateStrategy.RollingUpdate != nil && spec.UpdateStrategy.RollingUpdate.MaxUnavailable != nil {
				maxUnavailable = *spec.UpdateStrategy.RollingUpdate.MaxUnavailable
			}
			unavailable, err := intstr.GetScaledValueFromIntOrPercent(&maxUnavailable, int(replicas), false)
			if err == nil && unavailable < 1 {
				unavailable = 1 // a StatefulSet always replaces at least one pod at a time
			}
			if err == nil && int32(unavailable) >= replicas {
				pass.Reportf("spec.replicas",
					"StatefulSet with %s%s: a rolling update deletes %s before its replacement starts, so the model is unavailable "+
						"for the whole load time of every rollout; run more replicas, or a Deployment with maxUnavailable: 0 and maxSurge: 1",
					plural(int(replicas), "replica"), replicasFrom, podsPhrase(unavailable, replicas))
			}
		}
	case w.Rollout != nil:
		spec := w.Rollout
		if canary := spec.Strategy.Canary; canary != nil {
			checkMaxUnavailable(pass, "spec.strategy.canary.maxUnavailable", intOrString(canary.MaxUnavailable), intstr.FromString(defaultMaxUnavailablePercent), replicas, replicasFrom, noFix)
		}
		checkProgressDeadline(pass, serving, spec.ProgressDeadlineSeconds)
	}
}

func podsPhrase(n int, replicas int32) string {
	if int32(n) >= replicas {
		if replicas == 1 {
			return "the only pod"
		}
		return "every pod"
	}
	return plural(n, "pod")
}

// checkMaxUnavailable reports, with fix, a maxUnavailable that takes too
// much of the serving capacity away before the replacements are Ready.
func checkMaxUnavailable(pass *lint.Pass, path string, value *intstr.IntOrString, defaultValue intstr.IntOrString, replicas int32, replicasFrom string, fix func() *lint.Fix) {
	written := true
	if value == nil {
		value, written = &defaultValue, false
	}
	unavailable, err := intstr.GetScaledValueFromIntOrPercent(value, int(replicas), false)
	if err != nil || unavailable < 1 {
		return
	}
	if replicas > fewReplicas && int32(unavailable) < replicas {
		return
	}
	setting := "maxUnavailable " + value.String()
	switch {
	case !written:
		setting += fmt.Sprintf(" (the default, %s)", plural(unavailable, "pod"))
	case value.Type == intstr.String:
		setting += fmt.Sprintf(" (%s)", plural(unavailable, "pod"))
	}
	capacity := "every model-server pod"
	if int32(unavailable) < replicas {
		capacity = fmt.Sprintf("%d of %d model-server pods", unavailable, replicas)
	}
	reportFixed(pass, fix(), path,
		"%s with %s%s lets a rollout take %s down before the replacements have loaded the model; "+
			"set maxUnavailable: 0 and maxSurge: 1", setting, plural(int(replicas), "replica"), replicasFrom, capacity)
}

// fixMaxUnavailable sets maxUnavailable: 0 under the rolling-update
// mapping at path, and maxSurge: 1 where it resolves to no pod (both 0 is
// a rollout the API server refuses).
func fixMaxUnavailable(pass *lint.Pass, path string, maxUnavailable, maxSurge *intstr.IntOrString, defaultSurge intstr.IntOrString, replicas int32) *lint.Fix {
	fields := []field{{key: "maxUnavailable", value: "0"}}
	if maxUnavailable != nil {
		fields[0].matches = sameText(maxUnavailable.String())
	}
	surge := defaultSurge
	if maxSurge != nil {
		surge = *maxSurge
	}
	if pods, err := intstr.GetScaledValueFromIntOrPercent(&surge, int(replicas), true); err == nil && pods < 1 {
		fields = append(fields, field{key: "maxSurge", value: "1", matches: sameText(surge.String())})
	}
	edits, suggestion := setFields(pass.Workload().Object, path, fields)
	return lint.EditFix("set maxUnavailable: 0, so a rollout starts each new pod before it stops an old one", suggestion, edits...)
}

// checkProgressDeadline reports a progress deadline shorter than the time the
// probes give a pod to start.
func checkProgressDeadline(pass *lint.Pass, serving []*manifest.Container, deadline *int32) {
	seconds, written := int32(defaultProgressDeadlineSeconds), false
	if deadline != nil {
		seconds, written = *deadline, true
	}
	var slowest *manifest.Container
	var budget int32
	var probeName string
	for _, c := range serving {
		probe, name := c.StartupProbe, "startupProbe"
		if probe == nil {
			probe, name = c.LivenessProbe, "livenessProbe"
		}
		if probe == nil {
			continue
		}
		if b := probeBudget(probe); b > budget {
			slowest, budget, probeName = c, b, name
		}
	}
	if slowest == nil || seconds >= budget {
		return
	}
	setting := fmt.Sprintf("progressDeadlineSeconds is %d", seconds)
	if !written {
		setting += " (the default)"
	}
	pass.Reportf("spec.progressDeadlineSeconds",
		"%s, but the %s of %s allows %ds for the model to load: a slow but healthy rollout is marked failed "+
			"(ProgressDeadlineExceeded) and CD tools abort or roll it back; set progressDeadlineSeconds above %d",
		setting, probeName, describe(slowest), budget, budget)
}

// effectiveReplicas is the replica count a rollout works with: the minimum
// of an autoscaler targeting the workload, else spec.replicas (default 1).
func effectiveReplicas(pass *lint.Pass) (int32, string) {
	w := pass.Workload()
	object := w.Object
	for _, other := range pass.Objects.OfKinds("HorizontalPodAutoscaler", "ScaledObject") {
		if other.Namespace != object.Namespace && other.Namespace != "" && object.Namespace != "" {
			continue
		}
		switch {
		case other.Kind == "HorizontalPodAutoscaler" && other.Group() == "autoscaling":
			var hpa struct {
				Spec struct {
					ScaleTargetRef struct{ Kind, Name string } `json:"scaleTargetRef"`
					MinReplicas    *int32                      `json:"minReplicas"`
				} `json:"spec"`
			}
			if other.Decode(&hpa) != nil || hpa.Spec.ScaleTargetRef.Kind != object.Kind || hpa.Spec.ScaleTargetRef.Name != object.Name {
				continue
			}
			minimum := int32(1)
			if hpa.Spec.MinReplicas != nil {
				minimum = *hpa.Spec.MinReplicas
			}
			return minimum, " (the minimum of HorizontalPodAutoscaler " + other.Name + ")"
		case other.Kind == "ScaledObject" && other.Group() == "keda.sh":
			var scaled struct {
				Spec struct {
					ScaleTargetRef  struct{ Kind, Name string } `json:"scaleTargetRef"`
					MinReplicaCount *int32                      `json:"minReplicaCount"`
				} `json:"spec"`
			}
			kind := object.Kind
			if other.Decode(&scaled) != nil || scaled.Spec.ScaleTargetRef.Name != object.Name {
				continue
			}
			if k := scaled.Spec.ScaleTargetRef.Kind; k != "" && k != kind || k == "" && kind != "Deployment" {
				continue
			}
			var minimum int32
			if scaled.Spec.MinReplicaCount != nil {
				minimum = *scaled.Spec.MinReplicaCount
			}
			return minimum, " (the minimum of ScaledObject " + other.Name + ")"
		}
	}
	var replicas *int32
	switch {
	case w.RollingUpdate != nil:
		replicas = w.RollingUpdate.Replicas
	case w.Deployment != nil:
		replicas = w.Deployment.Spec.Replicas
	case w.StatefulSet != nil:
		replicas = w.StatefulSet.Spec.Replicas
	case w.Rollout != nil:
		replicas = w.Rollout.Replicas
	}
	if replicas == nil {
		return 1, " (the default)"
	}
	return *replicas, ""
}

// mountsReadWriteOnceClaim reports whether the pod mounts a claim from the
// linted files that only one node can attach, where surging is impossible.
func mountsReadWriteOnceClaim(pass *lint.Pass) bool {
	w := pass.Workload()
	for _, volume := range w.Spec.Volumes {
		if volume.PersistentVolumeClaim == nil {
			continue
		}
		object := pass.Objects.Find("PersistentVolumeClaim", w.Object.Namespace, volume.PersistentVolumeClaim.ClaimName)
		if object == nil {
			continue
		}
		var claim corev1.PersistentVolumeClaim
		if object.Decode(&claim) != nil {
			continue
		}
		for _, mode := range claim.Spec.AccessModes {
			if mode == corev1.ReadWriteOnce || mode == corev1.ReadWriteOncePod {
				return true
			}
		}
	}
	return false
}

// intOrString converts a decoded Argo Rollout field (a number or a percentage).
func intOrString(value any) *intstr.IntOrString {
	switch v := value.(type) {
	case float64:
		result := intstr.FromInt(int(v))
		return &result
	case int64:
		result := intstr.FromInt(int(v))
		return &result
	case string:
		result := intstr.Parse(v)
		return &result
	}
	return nil
}

var batchAsService = &lint.Rule{
	ID: "MDL211", Name: "batch-as-service", Severity: lint.Warning,
	Artifact: lint.ArtifactManifest, Needs: []lint.Fact{lint.FactManifest},
	Doc: lint.Doc{
		Summary: "A batch job runs under a controller that restarts it forever, or a Job's pods are set to restart Always.",
		Why: "Deployments, StatefulSets, ReplicaSets, ReplicationControllers and Argo Rollouts keep their pods running: " +
			"a batch step (a model download, a conversion, an evaluation) that exits, even successfully, is restarted with " +
			"growing back-off and the workload shows CrashLoopBackOff forever. Reported when a container looks like a batch " +
			"step (its name, image or command says train, convert, download, migrate, backfill, etl, batch, preprocess, " +
			"quantize, evaluate, benchmark, ingest, warmup, or runs gsutil/aws s3/huggingface-cli/wget/curl), no container " +
			"exposes a port or has a probe, no Service in the linted files selects the pods, and no command is a keep-alive " +
			"loop (while true, sleep infinity, tail -f). Long-running workers without ports are not reported. DaemonSets and " +
			"bare Pods are not checked. A Job or CronJob whose pod " +
			"restartPolicy is Always or unset is rejected by the API server: a Job's pods must be able to finish.",
		Bad: `kind: Deployment
spec:
  template:
    spec:
      containers:
        - name: convert
          image: registry.example.com/convert-model:1.4
          args: ["--in", "/models/raw", "--out", "/models/onnx"]`,
		Good: `apiVersion: batch/v1
kind: Job
spec:
  backoffLimit: 2
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: convert
          image: registry.example.com/convert-model:1.4
          args: ["--in", "/models/raw", "--out", "/models/onnx"]`,
		Fix: "Run batch work as a Job (or a CronJob) with restartPolicy OnFailure or Never. If it is a long-running " +
			"worker, give it a livenessProbe so a hang is noticed.",
		References: []string{
			"https://kubernetes.io/docs/concepts/workloads/controllers/job/",
			"https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#restart-policy",
			"https://kubernetes.io/docs/concepts/workloads/controllers/deployment/",
		},
	},
	Check: checkBatchAsService,
}

// keepAlive recognises commands that run forever on purpose.
var keepAlive = lazyregexp.New(`while\s+(true|:|\[\s*1\s*\]|\(\(\s*1\s*\)\))|sleep\s+(infinity|inf\b|\d{4,})|tail\s+-f|--block\b|for\s*\(\(\s*;\s*;\s*\)\)`)

func checkBatchAsService(pass *lint.Pass) {
	w := pass.Workload()
	if w.Job != nil {
		checkJobRestartPolicy(pass)
		return
	}
	// A controller that restarts exited pods (Deployments, StatefulSets,
	// LeaderWorkerSets, KAITO) turns a batch job into a crash loop; a
	// platform that builds its own pods, and a DaemonSet, are judged elsewhere.
	if w.Lifecycle != manifest.KeptRunning || w.Platform != "" || w.Object.Kind == "DaemonSet" {
		pass.Skip("not a Deployment, StatefulSet, ReplicaSet, Rollout, LeaderWorkerSet, KAITO Workspace, Job or CronJob")
		return
	}
	regular := regularContainers(w)
	if len(regular) == 0 {
		return
	}
	var names []string
	evidence := ""
	for _, c := range regular {
		if c.Serving() || len(c.Ports) > 0 || c.ReadinessProbe != nil || c.LivenessProbe != nil || c.StartupProbe != nil {
			return
		}
		if keepAlive.MatchString(strings.Join(argv(c), " ")) {
			return
		}
		if evidence == "" {
			evidence = batchEvidence(c)
		}
		names = append(names, c.Name)
	}
	if evidence == "" || selectingService(pass) != "" {
		return
	}
	pass.Reportf("kind",
		"%s %s runs %s, which looks like a batch step, yet no container (%s) exposes a port or has a probe and no Service "+
			"selects its pods: when it finishes it is restarted forever (CrashLoopBackOff); run it as a Job, or give a "+
			"long-running worker a livenessProbe", w.Object.Kind, w.Object.Name, evidence, joinAnd(names))
}

// batchWord recognises the name of a batch step in a container's name, image
// or command ("convert", "download-model", "train.py").
var batchWord = lazyregexp.New(`(?i)(?:^|[^a-z])(train|training|finetune|fine-tune|fine_tune|convert|conversion|download|downloader|` +
	`migrate|migration|backfill|etl|batch|preprocess|preprocessing|quantize|evaluate|evaluation|benchmark|ingest|loadtest|load-test|warmup)(?:[^a-z]|$)`)

// batchEvidence returns what makes a container look like a batch step, or ""
// when nothing does. Flags and their values are not looked at, so a server's
// --max-batch-size does not count.
func batchEvidence(c *manifest.Container) string {
	var words []string
	words = append(words, c.Name)
	if ref, ok := parseImageReference(c.Image); ok {
		words = append(words, ref.Repository[strings.LastIndexByte(ref.Repository, '/')+1:])
	}
	for _, word := range argv(c) {
		for _, field := range strings.Fields(word) {
			if !strings.HasPrefix(field, "-") {
				words = append(words, field)
			}
		}
	}
	for _, word := range words {
		if m := batchWord.FindStringSubmatch(word); m != nil {
			return fmt.Sprintf("%q", word)
		}
	}
	if downloadCommand.MatchString(strings.Join(argv(c), " ")) {
		return "a download (" + downloadCommand.FindString(strings.Join(argv(c), " ")) + ")"
	}
	return ""
}

func checkJobRestartPolicy(pass *lint.Pass) {
	w := pass.Workload()
	switch w.Spec.RestartPolicy {
	case corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever:
		return
	case corev1.RestartPolicyAlways:
		pass.Reportf(w.SpecPath+".restartPolicy",
			"%s pods have restartPolicy Always: the API server rejects it for Jobs (a Job's pod must be able to finish); "+
				"use OnFailure or Never", w.Object.Kind)
	default:
		pass.Reportf(w.SpecPath+".restartPolicy",
			"%s pod template sets no restartPolicy: the API server accepts a Job only with OnFailure or Never (the pod "+
				"default, Always, would rerun it forever); set restartPolicy: OnFailure or Never", w.Object.Kind)
	}
}

// selectingService returns the name of a Service in the linted files whose
// selector matches the workload's pod labels.
func selectingService(pass *lint.Pass) string {
	w := pass.Workload()
	labels := templateLabels(w)
	if len(labels) == 0 {
		return ""
	}
	namespace := w.Object.Namespace
	services := pass.Objects.DerivedIn(namespace, "service selectors", func() any {
		return serviceSelectors(pass.Objects, namespace)
	}).([]serviceSelector)
	for _, service := range services {
		matches := true
		for key, value := range service.selector {
			if labels[key] != value {
				matches = false
				break
			}
		}
		if matches {
			return service.name
		}
	}
	return ""
}

// serviceSelector is a Service's name and its non-empty selector.
type serviceSelector struct {
	name     string
	selector map[string]string
}

// serviceSelectors are the selectors of the Services a workload of the
// namespace may be selected by, in the order they were read: decoded once
// per namespace, not once per workload.
func serviceSelectors(objects *manifest.Set, namespace string) []serviceSelector {
	var selectors []serviceSelector
	for _, object := range objects.OfKindsIn(namespace, "Service") {
		if object.Kind != "Service" || object.Group() != "" {
			continue
		}
		var service corev1.Service
		if object.Decode(&service) != nil || len(service.Spec.Selector) == 0 {
			continue
		}
		selectors = append(selectors, serviceSelector{name: object.Name, selector: service.Spec.Selector})
	}
	return selectors
}
