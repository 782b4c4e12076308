package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/cluster"
)

// gh200Nodes are the cluster of MDL311's examples: an amd64 CPU node and an
// arm64 GPU node.
const gh200Nodes = "# --cluster nodes.yaml\napiVersion: v1\nkind: List\nitems:\n" +
	"  - kind: Node\n    metadata:\n      name: cpu-1\n      labels: {kubernetes.io/arch: amd64}\n" +
	"    status:\n      allocatable: {cpu: \"16\", memory: 64Gi, pods: \"110\"}\n      nodeInfo: {architecture: amd64}\n" +
	"  - kind: Node\n    metadata:\n      name: gh200-1\n      labels: {kubernetes.io/arch: arm64, nvidia.com/gpu.present: \"true\"}\n" +
	"    status:\n      allocatable: {cpu: \"72\", memory: 480Gi, nvidia.com/gpu: \"1\", pods: \"110\"}\n      nodeInfo: {architecture: arm64}\n---\n"

var imagePlatformMissing = &lint.Rule{
	ID: "MDL311", Name: "image-platform-missing", Severity: lint.Error,
	Artifact: lint.ArtifactImage, Needs: []lint.Fact{lint.FactManifest, lint.FactImage},
	Doc: lint.Doc{
		Summary: "The image has no variant for the architecture of the cluster nodes the pod can land on.",
		Why: "A node pulls the variant of a multi-platform index for its own architecture; when the index has none, the " +
			"pull fails (\"no match for platform in manifest\", ErrImagePull), and a single-platform image built for " +
			"another architecture starts and fails with \"exec format error\" (CrashLoopBackOff). GPU node pools are " +
			"often arm64 (GH200, GB200, AWS Graviton with T4g) beside amd64 CPU pools, and many serving images are " +
			"published for amd64 only.\n\nThe nodes are the --cluster nodes (kubectl get nodes -o yaml) the pod can " +
			"be scheduled on (node selector, required node affinity, taints), each with its " +
			"status.nodeInfo.architecture; the image's variants are its index's platforms, or its config's. An error " +
			"when no such node can run the image, a warning when the nodes have several architectures and some of them " +
			"cannot (the pods the scheduler places there fail). Without cluster facts the rule is skipped; " +
			"kubernetes.io/arch node selectors and cluster.architecture are MDL305's." + offlineNote,
		Bad: gh200Nodes + "# docker build -t registry.example.com/serving/app:1.0 .\nFROM scratch\nCOPY server /serve\n" +
			"ENTRYPOINT [\"/serve\"]\n---\nimage: registry.example.com/serving/app:1.0\nnodeSelector:\n  nvidia.com/gpu.present: \"true\"",
		Good: gh200Nodes + "# docker buildx build --platform linux/amd64,linux/arm64 -t registry.example.com/serving/app:1.1 .\n" +
			"FROM scratch\nCOPY server /serve\nENTRYPOINT [\"/serve\"]\n" +
			"---\nimage: registry.example.com/serving/app:1.1\nnodeSelector:\n  nvidia.com/gpu.present: \"true\"",
		Fix: "Publish the image for the nodes' architecture (docker buildx build --platform linux/amd64,linux/arm64), or " +
			"schedule the pod on nodes it has a variant for (nodeSelector kubernetes.io/arch).",
		References: []string{
			"https://kubernetes.io/docs/reference/labels-annotations-taints/#kubernetes-io-arch",
			"https://docs.docker.com/build/building/multi-platform/",
		},
	},
	Check: checkImagePlatform,
}

func checkImagePlatform(pass *lint.Pass) {
	w := pass.Workload()
	switch {
	case pass.Cluster == nil:
		pass.Skip(skipNoCluster)
		return
	case w == nil:
		pass.Skip("an image linted on its own is placed on no nodes")
		return
	}
	nodes := pass.Cluster.Matching(w.Spec)
	arches := cluster.Architectures(nodes)
	switch {
	case len(nodes) == 0:
		pass.Skip("no --cluster node can run the pod (MDL217)")
		return
	case len(arches) == 0:
		pass.Skip("the --cluster nodes the pod can land on do not report their architecture")
		return
	}
	for _, c := range imageChecks(pass, false) {
		if c.arch != "" {
			// A kubernetes.io/arch selector or cluster.architecture: the image was
			// read for it, and MDL305 and MDL310 judge it.
			pass.Skip("the pod's architecture is set (kubernetes.io/arch or cluster.architecture): MDL305 and MDL310 check it")
			continue
		}
		offered, from := imagePlatforms(c)
		var missing []string
		for _, arch := range arches {
			if !slices.Contains(offered, arch) {
				missing = append(missing, arch)
			}
		}
		if len(missing) == 0 {
			continue
		}
		where := fmt.Sprintf("the %s the pod can land on (%s)", plural(len(nodes), "node"), pass.Cluster.Path)
		failure := "the pull fails with \"no match for platform in manifest\" (ErrImagePull)"
		if len(c.img.Platforms) == 0 {
			failure = "the container fails at every start with \"exec format error\""
		}
		if len(missing) == len(arches) {
			pass.Report(lint.Diagnostic{Severity: lint.Error, Path: c.field(), Image: lint.ImageLocation{Reference: c.img.Reference}, Message: fmt.Sprintf("%s: the image has %s, but %s are %s: %s; publish the image for linux/%s%s", c.label(), from, where, joinOr(arches), failure, arches[0], orSchedule(offered))})
			continue
		}
		var runnable []string
		for _, arch := range arches {
			if slices.Contains(offered, arch) {
				runnable = append(runnable, arch)
			}
		}
		pass.Report(lint.Diagnostic{Severity: lint.Warning, Path: c.field(), Image: lint.ImageLocation{Reference: c.img.Reference}, Message: fmt.Sprintf("%s: the image has %s, but %s include %s nodes: on those %s; add the node selector kubernetes.io/arch: %s, "+
			"or publish the image for linux/%s as well", c.label(), from, where, strings.Join(missing, " and "), failure, runnable[0], missing[0])})
	}
}

// imagePlatforms are the architectures a node can run the image on: its
// index's linux variants, else its config's; from says which, for messages.
func imagePlatforms(c *imageCheck) ([]string, string) {
	var arches []string
	if len(c.img.Platforms) > 0 {
		for _, platform := range c.img.Platforms {
			if platform.OS == "linux" && !slices.Contains(arches, platform.Architecture) {
				arches = append(arches, platform.Architecture)
			}
		}
		slices.Sort(arches)
		return arches, "variants for " + orNoneText(joinAnd(prefixed("linux/", arches))) + " only"
	}
	if config := c.img.Config; config != nil && config.Architecture != "" {
		return []string{config.Architecture}, fmt.Sprintf("one platform, %s/%s", config.OS, config.Architecture)
	}
	return nil, "no platform in its config"
}

func orSchedule(offered []string) string {
	if len(offered) == 0 {
		return ""
	}
	return " or schedule the pod on " + joinOr(offered) + " nodes"
}

func prefixed(prefix string, values []string) []string {
	out := make([]string, len(values))
	for i, value := range values {
		out[i] = prefix + value
	}
	return out
}

func orNoneText(text string) string {
	if text == "" {
		return "none"
	}
	return text
}
