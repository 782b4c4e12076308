package rules

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
)

var limitRangeViolated = &lint.Rule{
	ID: "MDL218", Name: "limit-range-violated", Severity: lint.Error,
	Artifact: lint.ArtifactManifest, Needs: []lint.Fact{lint.FactManifest},
	Doc: lint.Doc{
		Summary: "A container's limit is above its namespace's LimitRange max, or its request below the min.",
		Why: "The LimitRanger admission plugin checks every pod against the LimitRanges of its namespace: a container " +
			"limit above a max, a request below a min, or a limit/request ratio above maxLimitRequestRatio makes the API " +
			"server reject the pod (\"maximum memory usage per Container is 32Gi, but limit is 64Gi\"). A Deployment, " +
			"StatefulSet or LeaderWorkerSet is accepted, but its controller cannot create a single pod: the ReplicaSet " +
			"reports FailedCreate and nothing runs. LLM servers ask for far more memory and GPUs than the limits a " +
			"namespace was set up with for web services.\n\nChecked against the LimitRanges in the linted files of the " +
			"workload's namespace (a side without a namespace matches any), after the defaults they give: a request the " +
			"container leaves out is its limit, else the LimitRange's defaultRequest; a limit left out is its default. " +
			"Type Container items are checked per container, Type Pod items against the sum of the pod's containers. In " +
			"an InferenceService's pods, whose resources KServe's webhook fills in, only the storage-initializer init " +
			"container it injects is checked, with the resources of KServe's defaults (requests cpu 100m, memory 100Mi; " +
			"limits cpu 1, memory 1Gi): a min above them refuses every pod that downloads its model.",
		Bad:  "containers:\n  - name: vllm\n    resources:\n      limits: {memory: 64Gi}\n---\n" + docLimitRange,
		Good: "containers:\n  - name: vllm\n    resources:\n      limits: {memory: 32Gi}\n---\n" + docLimitRange,
		Fix: "Lower the container's limit (or raise its request) into the LimitRange's bounds, or raise the LimitRange's " +
			"max for the namespace that serves models.",
		References: []string{
			"https://kubernetes.io/docs/concepts/policy/limit-range/",
			"https://kubernetes.io/docs/reference/access-authn-authz/admission-controllers/#limitranger",
		},
	},
	Check: checkLimitRange,
}

var resourceQuotaUnmet = &lint.Rule{
	ID: "MDL219", Name: "resource-quota-unmet", Severity: lint.Error,
	Artifact: lint.ArtifactManifest, Needs: []lint.Fact{lint.FactManifest},
	Doc: lint.Doc{
		Summary: "A container sets no cpu or memory request or limit that its namespace's ResourceQuota constrains.",
		Why: "When a ResourceQuota in a namespace sets a hard limit on cpu or memory (requests.cpu, requests.memory, " +
			"limits.cpu, limits.memory), the ResourceQuota admission plugin rejects every pod with a container, init " +
			"containers included, that does not specify that request or limit: \"failed quota: compute: must specify " +
			"limits.memory for: vllm\". The workload object is accepted, but no pod is ever created (FailedCreate). " +
			"A default from a LimitRange in the namespace counts as specified.\n\nChecked against the ResourceQuotas in " +
			"the linted files of the workload's namespace (a side without a namespace matches any). Quotas with scopes " +
			"or a scopeSelector apply to some pods only and are not checked.",
		Bad: "containers:\n  - name: vllm\n    resources:\n      requests: {cpu: \"8\", memory: 32Gi}\n" +
			"      limits: {memory: 32Gi}\n---\n" + docResourceQuota,
		Good: "containers:\n  - name: vllm\n    resources:\n      requests: {cpu: \"8\", memory: 32Gi}\n" +
			"      limits: {cpu: \"8\", memory: 32Gi}\n---\n" + docResourceQuota,
		Fix: "Set the request or limit the quota counts on every container (init containers too), or give the namespace " +
			"a LimitRange with a default for it.",
		References: []string{
			"https://kubernetes.io/docs/concepts/policy/resource-quotas/#compute-resource-quota",
			"https://kubernetes.io/docs/reference/access-authn-authz/admission-controllers/#resourcequota",
		},
	},
	Check: checkResourceQuota,
}

// docLimitRange and docResourceQuota are the namespace objects of the
// rules' examples.
const (
	docLimitRange = "apiVersion: v1\nkind: LimitRange\nmetadata:\n  name: container-bounds\nspec:\n  limits:\n" +
		"    - type: Container\n      max: {memory: 32Gi}"
	docResourceQuota = "apiVersion: v1\nkind: ResourceQuota\nmetadata:\n  name: compute\nspec:\n  hard:\n" +
		"    requests.cpu: \"64\"\n    limits.cpu: \"64\"\n    limits.memory: 512Gi"
)

// namespaced is a LimitRange or ResourceQuota of the workload's namespace,
// decoded, with the file:line of its name for messages.
type namespaced[T any] struct {
	object *manifest.Object
	value  T
	where  string
}

// namespaceObjects decodes the objects of a core kind in the workload's
// namespace; namespaces that are not written match any namespace.
func namespaceObjects[T any](pass *lint.Pass, kind string) []namespaced[T] {
	namespace := pass.Workload().Object.Namespace
	var found []namespaced[T]
	for _, object := range pass.Objects.OfKindsIn(namespace, kind) {
		if object.Kind != kind || object.Group() != "" {
			continue
		}
		if object.Namespace != "" && namespace != "" && object.Namespace != namespace {
			continue
		}
		var value T
		if object.Decode(&value) != nil {
			continue
		}
		file, pos := object.Where("metadata.name")
		found = append(found, namespaced[T]{object: object, value: value, where: fmt.Sprintf("%s:%d", file, pos.Line)})
	}
	return found
}

// admitted is a container's resources as admission sees them, with the
// field each value came from ("" for a LimitRange default).
type admitted struct {
	requests, limits                 corev1.ResourceList
	requestField, limitField         map[corev1.ResourceName]string
	defaultedRequest, defaultedLimit map[corev1.ResourceName]bool
}

// admittedResources applies the API server's defaulting (a missing request
// is the limit) and the LimitRanges' defaults to a container.
func admittedResources(c *manifest.Container, ranges []namespaced[corev1.LimitRange]) admitted {
	a := admitted{requests: corev1.ResourceList{}, limits: corev1.ResourceList{},
		requestField: map[corev1.ResourceName]string{}, limitField: map[corev1.ResourceName]string{},
		defaultedRequest: map[corev1.ResourceName]bool{}, defaultedLimit: map[corev1.ResourceName]bool{}}
	for name, quantity := range c.Resources.Limits {
		a.limits[name], a.limitField[name] = quantity, resourcePath(c, "limits", name)
	}
	for name, quantity := range c.Resources.Requests {
		a.requests[name], a.requestField[name] = quantity, resourcePath(c, "requests", name)
	}
	for name, quantity := range c.Resources.Limits {
		if _, ok := a.requests[name]; !ok {
			a.requests[name], a.requestField[name] = quantity, resourcePath(c, "limits", name)
		}
	}
	for _, lr := range ranges {
		for _, item := range lr.value.Spec.Limits {
			if item.Type != corev1.LimitTypeContainer {
				continue
			}
			item = withDefaults(item)
			for name, quantity := range item.Default {
				if _, ok := a.limits[name]; !ok {
					a.limits[name], a.defaultedLimit[name] = quantity, true
				}
			}
			for name, quantity := range item.DefaultRequest {
				if _, ok := a.requests[name]; !ok {
					a.requests[name], a.defaultedRequest[name] = quantity, true
				}
			}
		}
	}
	return a
}

func checkLimitRange(pass *lint.Pass) {
	w := pass.Workload()
	ranges := namespaceObjects[corev1.LimitRange](pass, "LimitRange")
	switch {
	case len(ranges) == 0:
		pass.Skip("no LimitRange in the linted files for the workload's namespace")
		return
	case platformFillsPod(w) && !slices.ContainsFunc(w.Containers, isInjected):
		pass.Skip("KServe builds the pod and fills in its resources")
		return
	}
	// KServe fills in the resources of the containers it builds: only
	// those of what it injects are known, and the pod's sums are not.
	fills := platformFillsPod(w)
	podLimits, podRequests := corev1.ResourceList{}, corev1.ResourceList{}
	for _, c := range w.Containers {
		if fills && !isInjected(c) {
			continue
		}
		a := admittedResources(c, ranges)
		for _, lr := range ranges {
			for _, item := range lr.value.Spec.Limits {
				if item.Type == corev1.LimitTypeContainer {
					checkLimitItem(pass, c, a, lr, item)
				}
			}
		}
		if !c.Init {
			addResources(podLimits, a.limits)
			addResources(podRequests, a.requests)
		}
	}
	if fills {
		return
	}
	for _, lr := range ranges {
		for _, item := range lr.value.Spec.Limits {
			if item.Type != corev1.LimitTypePod {
				continue
			}
			for _, name := range sortedResources(item.Max) {
				if total, ok := podLimits[name]; ok && total.Cmp(item.Max[name]) > 0 {
					max := item.Max[name]
					pass.Reportf(manifest.JoinPath(w.SpecPath, "containers"), "the pod's containers have %s limits of %s "+
						"together, above the maximum %s per Pod of LimitRange %q (%s): the API server rejects the pod "+
						"(\"maximum %s usage per Pod is %s, but limit is %s\") and %s; lower the limits or raise the max",
						name, total.String(), max.String(), lr.object.Name, lr.where, name, max.String(), total.String(),
						rejectedPods(w))
				}
			}
			for _, name := range sortedResources(item.Min) {
				if total, ok := podRequests[name]; ok && total.Cmp(item.Min[name]) < 0 {
					min := item.Min[name]
					pass.Reportf(manifest.JoinPath(w.SpecPath, "containers"), "the pod's containers request %s %s together, "+
						"below the minimum %s per Pod of LimitRange %q (%s): the API server rejects the pod and %s; raise "+
						"the requests or lower the min", total.String(), name, min.String(), lr.object.Name, lr.where,
						rejectedPods(w))
				}
			}
		}
	}
}

// isInjected reports whether a platform adds the container to the pod
// (KServe's storage-initializer), with resources of its own config.
func isInjected(c *manifest.Container) bool { return c.Injected != "" }

// checkLimitItem checks one container against one Type Container item.
func checkLimitItem(pass *lint.Pass, c *manifest.Container, a admitted, lr namespaced[corev1.LimitRange], item corev1.LimitRangeItem) {
	w := pass.Workload()
	for _, name := range sortedResources(item.Max) {
		limit, ok := a.limits[name]
		max := item.Max[name]
		if !ok || a.defaultedLimit[name] || limit.Cmp(max) <= 0 {
			continue
		}
		pass.Reportf(a.limitField[name], "%s: limits.%s %s is above the maximum %s per Container of LimitRange %q (%s): "+
			"the API server rejects the pod (\"maximum %s usage per Container is %s, but limit is %s\") and %s; lower the "+
			"limit to %s or raise the LimitRange's max", describe(c), name, limit.String(), max.String(), lr.object.Name,
			lr.where, name, max.String(), limit.String(), rejectedPods(w), max.String())
	}
	for _, name := range sortedResources(item.Min) {
		request, ok := a.requests[name]
		min := item.Min[name]
		if !ok || a.defaultedRequest[name] || request.Cmp(min) >= 0 {
			continue
		}
		pass.Reportf(a.requestField[name], "%s: requests.%s %s is below the minimum %s per Container of LimitRange %q "+
			"(%s): the API server rejects the pod (\"minimum %s usage per Container is %s, but request is %s\") and %s; "+
			"raise the request to %s or lower the LimitRange's min", describe(c), name, request.String(), min.String(),
			lr.object.Name, lr.where, name, min.String(), request.String(), rejectedPods(w), min.String())
	}
	for _, name := range sortedResources(item.MaxLimitRequestRatio) {
		limit, hasLimit := a.limits[name]
		request, hasRequest := a.requests[name]
		if !hasLimit || !hasRequest || request.IsZero() || a.defaultedLimit[name] && a.defaultedRequest[name] {
			continue
		}
		ratio := item.MaxLimitRequestRatio[name]
		if float64(limit.MilliValue()) <= ratio.AsApproximateFloat64()*float64(request.MilliValue()) {
			continue
		}
		field := a.limitField[name]
		if field == "" {
			field = a.requestField[name]
		}
		pass.Reportf(field, "%s: limits.%s %s is %.1f× requests.%s %s, above the maxLimitRequestRatio %s of LimitRange "+
			"%q (%s): the API server rejects the pod and %s; bring the limit and the request closer", describe(c), name,
			limit.String(), float64(limit.MilliValue())/float64(request.MilliValue()), name, request.String(),
			ratio.String(), lr.object.Name, lr.where, rejectedPods(w))
	}
}

func checkResourceQuota(pass *lint.Pass) {
	w := pass.Workload()
	quotas := namespaceObjects[corev1.ResourceQuota](pass, "ResourceQuota")
	switch {
	case len(quotas) == 0:
		pass.Skip("no ResourceQuota in the linted files for the workload's namespace")
		return
	case platformFillsPod(w):
		pass.Skip("KServe builds the pod and fills in its resources")
		return
	}
	ranges := namespaceObjects[corev1.LimitRange](pass, "LimitRange")
	var coverage lint.Coverage
	for _, quota := range quotas {
		if len(quota.value.Spec.Scopes) > 0 || quota.value.Spec.ScopeSelector != nil {
			continue // it counts some pods only (BestEffort, a PriorityClass …)
		}
		coverage.Checked()
		for _, c := range w.Containers {
			a := admittedResources(c, ranges)
			var missing []string
			for _, hard := range sortedResources(quota.value.Spec.Hard) {
				list, name, ok := quotaResource(hard)
				if !ok {
					continue
				}
				values := a.requests
				if list == "limits" {
					values = a.limits
				}
				if _, set := values[name]; !set && !slices.Contains(missing, list+"."+string(name)) {
					missing = append(missing, list+"."+string(name))
				}
			}
			if len(missing) == 0 {
				continue
			}
			slices.Sort(missing)
			at := c.Path + ".resources"
			if !w.Object.Has(at) {
				at = c.Path
			}
			pass.Reportf(at, "%s sets no %s, which ResourceQuota %q (%s) limits in the namespace: the API server "+
				"rejects the pod (\"failed quota: %s: must specify %s\") and %s; set resources.%s",
				describe(c), joinAnd(missing), quota.object.Name, quota.where, quota.object.Name,
				strings.Join(missing, ","), rejectedPods(w), strings.Join(missing, ", resources."))
		}
	}
	coverage.SkipIfNone(pass, "every ResourceQuota of the namespace has scopes, which select some pods only")
}

// quotaResource reads a quota's hard key as the container field it needs.
// Only cpu and memory are enforced so (requests.cpu or cpu, requests.memory
// or memory, limits.cpu, limits.memory: the quota evaluator's validation
// set); a GPU or ephemeral-storage quota counts pods without requiring
// the field.
func quotaResource(hard corev1.ResourceName) (list string, name corev1.ResourceName, ok bool) {
	switch hard {
	case corev1.ResourceCPU, corev1.ResourceRequestsCPU:
		return "requests", corev1.ResourceCPU, true
	case corev1.ResourceMemory, corev1.ResourceRequestsMemory:
		return "requests", corev1.ResourceMemory, true
	case corev1.ResourceLimitsCPU:
		return "limits", corev1.ResourceCPU, true
	case corev1.ResourceLimitsMemory:
		return "limits", corev1.ResourceMemory, true
	}
	return "", "", false
}

// withDefaults fills a Type Container item's defaults as the API server
// does when it stores the LimitRange: a default limit is the max, a
// default request the default limit, else the min.
func withDefaults(item corev1.LimitRangeItem) corev1.LimitRangeItem {
	if item.Type != corev1.LimitTypeContainer {
		return item
	}
	item.Default, item.DefaultRequest = maps.Clone(item.Default), maps.Clone(item.DefaultRequest)
	if item.Default == nil {
		item.Default = corev1.ResourceList{}
	}
	if item.DefaultRequest == nil {
		item.DefaultRequest = corev1.ResourceList{}
	}
	for name, quantity := range item.Max {
		if _, ok := item.Default[name]; !ok {
			item.Default[name] = quantity
		}
	}
	for name, quantity := range item.Default {
		if _, ok := item.DefaultRequest[name]; !ok {
			item.DefaultRequest[name] = quantity
		}
	}
	for name, quantity := range item.Min {
		if _, ok := item.DefaultRequest[name]; !ok {
			item.DefaultRequest[name] = quantity
		}
	}
	return item
}

// rejectedPods says what the rejection does to the workload.
func rejectedPods(w *manifest.Workload) string {
	switch w.Object.Kind {
	case "Pod":
		return "the pod is never created"
	case "Job", "CronJob":
		return fmt.Sprintf("the %s's controller cannot create its pods (FailedCreate)", w.Object.Kind)
	}
	return fmt.Sprintf("the %s is accepted but its controller cannot create a single pod (FailedCreate)", w.Object.Kind)
}

func addResources(total, add corev1.ResourceList) {
	for name, quantity := range add {
		sum := total[name]
		sum.Add(quantity)
		total[name] = sum
	}
}

func sortedResources[V any](list map[corev1.ResourceName]V) []corev1.ResourceName {
	names := make([]corev1.ResourceName, 0, len(list))
	for name := range list {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
