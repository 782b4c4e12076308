package manifest

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// kubeRayOverwriteAnnotation, set to "true" on the RayCluster (a RayService
// or RayJob passes its annotations on) or on the pod template, keeps the
// Ray container's own command and args.
const kubeRayOverwriteAnnotation = "ray.io/overwrite-container-cmd"

// kubeRayStart sets what KubeRay runs in the Ray container (the first
// container of a head or worker pod) in place of its command and args, as
// BuildPod in ray-operator/controllers/ray/common/pod.go does: unless the
// overwrite annotation is "true" or the command and args already say
// "ray start", the command becomes `/bin/bash -c --` and the one arg
// `[COMMAND ARGS && ]ulimit -n ${RAY_START_ULIMIT_OPEN_FILES:-65536}; ray
// start [--head] FLAGS` (so the image's ENTRYPOINT and CMD never run).
func (w *Workload) kubeRayStart(c *Container, head bool, params map[string]string, objectAnnotations map[string]string) {
	if strings.EqualFold(objectAnnotations[kubeRayOverwriteAnnotation], "true") ||
		strings.EqualFold(w.TemplateAnnotations[kubeRayOverwriteAnnotation], "true") {
		return
	}
	// KubeRay joins the words with spaces into shell text, unquoted.
	var written strings.Builder
	for _, word := range append(append([]string(nil), c.Command...), c.Args...) {
		written.WriteString(" " + word + " ")
	}
	if strings.Contains(written.String(), "ray start") {
		return
	}
	start := "ulimit -n ${RAY_START_ULIMIT_OPEN_FILES:-65536}; " + rayStartCommand(head, params, c.Resources)
	if written.Len() > 0 {
		start = written.String() + " && " + start
	}
	c.PlatformCommand, c.PlatformArgs, c.StartedBy = []string{"/bin/bash", "-c", "--"}, []string{start}, "KubeRay"
}

// rayStartCommand is the `ray start` KubeRay generates for a node
// (setMissingRayStartParams and generateRayStartCommand): the group's
// rayStartParams with KubeRay's defaults, --block always, and num-cpus,
// memory and num-gpus from the container's resources when not given.
func rayStartCommand(head bool, given map[string]string, resources corev1.ResourceRequirements) string {
	params := maps.Clone(given)
	if params == nil {
		params = map[string]string{}
	}
	setDefault := func(name, value string) {
		if _, ok := params[name]; !ok && value != "" {
			params[name] = value
		}
	}
	if head {
		setDefault("dashboard-host", "0.0.0.0")
	} else {
		// KubeRay writes the head service's name; the pod's FQ_RAY_IP holds it.
		setDefault("address", "$FQ_RAY_IP:6379")
	}
	setDefault("metrics-export-port", "8080")
	params["block"] = "true"
	setDefault("dashboard-agent-listen-port", "52365")
	cpu := resources.Limits[corev1.ResourceCPU]
	if cpu.IsZero() {
		cpu = resources.Requests[corev1.ResourceCPU]
	}
	if !cpu.IsZero() {
		setDefault("num-cpus", strconv.FormatInt(cpu.Value(), 10))
	}
	if memory := resources.Limits[corev1.ResourceMemory]; !memory.IsZero() {
		setDefault("memory", strconv.FormatInt(memory.Value(), 10))
	}
	for _, name := range slices.Sorted(maps.Keys(resources.Limits)) {
		if quantity := resources.Limits[name]; strings.HasSuffix(string(name), "gpu") && !quantity.IsZero() {
			setDefault("num-gpus", strconv.FormatInt(quantity.Value(), 10))
		}
	}
	names := slices.Sorted(maps.Keys(params))
	command := "ray start"
	if head {
		command += " --head"
	}
	// Switches without a value are flags; "false" drops them, except for
	// the options that take a boolean.
	for _, name := range names {
		value := params[name]
		switch {
		case strings.EqualFold(value, "true") && !takesBoolean(name):
			command += " --" + name
		case strings.EqualFold(value, "false") && !takesBoolean(name):
		default:
			command += " --" + name + "=" + value
		}
	}
	return command
}

func takesBoolean(option string) bool {
	return option == "log-color" || option == "include-dashboard" || option == "include-log-monitor"
}

// rayContainer is the container KubeRay runs Ray in: the pod's first
// (utils.RayContainerIndex), nil when the pod has none.
func (w *Workload) rayContainer() *Container {
	for _, c := range w.Containers {
		if !c.Init {
			return c
		}
	}
	return nil
}

// kubeRaySubmit sets what KubeRay runs in a RayJob's submitter container
// (K8sJobMode) that has no command of its own, as configureSubmitterContainer
// and BuildJobSubmitCommand (ray-operator/controllers/ray/common/job.go) do:
// `/bin/bash -ce --` with a script that waits for the dashboard with python,
// then `ray job status`, `ray job submit … -- ENTRYPOINT` and `ray job logs`.
// The dashboard address and submission id are KubeRay's status fields, held
// by the RAY_DASHBOARD_ADDRESS and RAY_JOB_SUBMISSION_ID it sets; the flags
// that name no program (runtime env, metadata, entrypoint resources) are
// left out.
func (c *Container) kubeRaySubmit(entrypoint string) {
	if len(c.Command) > 0 {
		return
	}
	const address = "http://$RAY_DASHBOARD_ADDRESS"
	script := `until python -c "import urllib.request; r=urllib.request.urlopen('` + address + `/api/gcs_healthz', timeout=10); ` +
		`exit(0 if b'success' in r.read() else 1)" >/dev/null 2>&1 ; do echo "Waiting for Ray Dashboard GCS to become healthy at ` +
		address + ` ..." ; sleep 2 ; done ; ` +
		"if ! ray job status --address " + address + " $RAY_JOB_SUBMISSION_ID >/dev/null 2>&1 ; then " +
		"ray job submit --address " + address + " --no-wait --submission-id $RAY_JOB_SUBMISSION_ID -- " + strings.TrimSpace(entrypoint) + " ; " +
		"fi ; ray job logs --address " + address + " --follow $RAY_JOB_SUBMISSION_ID"
	c.PlatformCommand, c.PlatformArgs, c.StartedBy = []string{"/bin/bash", "-ce", "--"}, []string{script}, "KubeRay"
}
