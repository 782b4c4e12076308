package main

import (
	"github.com/spf13/pflag"

	"github.com/modellint/modellint/lint/engine"
	"github.com/modellint/modellint/lint/render/charts"
)

// addRenderFlags defines the flags for rendering Helm charts and Kustomize overlays.
func addRenderFlags(set *pflag.FlagSet, options *engine.RenderOptions) {
	set.StringArrayVar(&options.HelmValues, "helm-values", nil, "values file for Helm charts (helm -f), repeatable; later files win")
	set.StringArrayVar(&options.HelmSet, "helm-set", nil, "value for Helm charts as key=value (helm --set), repeatable; wins over values files")
	set.StringVar(&options.ReleaseName, "release-name", "", `Helm release name, .Release.Name (default "release-name", as helm template)`)
	set.StringVar(&options.Namespace, "namespace", "", `Helm release namespace, .Release.Namespace (default "default")`)
	set.BoolVar(&options.HelmIncludeTests, "helm-include-tests", false, "also lint Helm test hooks (helm.sh/hook: test), which an install does not create")
	set.StringVar(&options.KubeVersion, "kube-version", "", "Kubernetes version for Helm's .Capabilities.KubeVersion (helm --kube-version; default "+charts.DefaultKubeVersion+")")
	set.StringSliceVar(&options.APIVersions, "api-versions", nil, "extra API versions for Helm's .Capabilities.APIVersions (helm --api-versions), repeatable")
	set.StringVar(&options.KustomizeLoadRestrictor, "kustomize-load-restrictor", "", `"none" lets an overlay's kustomizations read files outside their own dir, never outside the repository holding the PATH (kustomize --load-restrictor LoadRestrictionsNone)`)
	set.DurationVar(&options.RenderTimeout, "render-timeout", charts.DefaultRenderTimeout,
		"the most time rendering one Helm chart or Kustomize overlay may take (it runs in a child process, also bounded to 512 MiB of heap)")
}
