package charts

import "time"

// Options say how a chart is rendered; the zero value renders it as `helm
// template CHART` does.
type Options struct {
	// ValuesFiles are -f files, in order (later ones win).
	ValuesFiles []string
	// Set are --set assignments (key=value), applied after the files.
	Set []string
	// ReleaseName is .Release.Name; DefaultReleaseName when empty, as in helm template.
	ReleaseName string
	// Namespace is .Release.Namespace; "default" when empty.
	Namespace string
	// IncludeTests keeps test hooks (helm.sh/hook: test), which `helm
	// install` never creates as part of the release.
	IncludeTests bool
	// Timeout bounds rendering in the child process; 0 means
	// DefaultRenderTimeout.
	Timeout time.Duration
	// KubeVersion is .Capabilities.KubeVersion (helm --kube-version);
	// DefaultKubeVersion when empty.
	KubeVersion string
	// APIVersions are added to .Capabilities.APIVersions (helm --api-versions).
	APIVersions []string
}

// DefaultKubeVersion is the Kubernetes version the bundled k8s.io libraries
// speak (k8s.io/api v0.37 is Kubernetes 1.37), as the helm binary fills
// .Capabilities from its client-go; the library's own default is 1.20, which
// fails charts that require a current Kubernetes and picks old APIs.
const DefaultKubeVersion = "v1.37.0"

// DefaultReleaseName is the release name `helm template` uses when given none.
const DefaultReleaseName = "release-name"

// DefaultRenderTimeout bounds one chart's rendering, in wall and CPU time:
// the largest public charts render and trace in well under a second.
const DefaultRenderTimeout = 10 * time.Second
