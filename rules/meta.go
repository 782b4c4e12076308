package rules

import "github.com/modellint/modellint/lint"

// The meta rules are about modellint's own inputs. The engine reports them
// itself, so they have no Check.

var suppressionReasonMissing = &lint.Rule{
	ID: lint.SuppressionRuleID, Name: "suppression-reason-missing", Severity: lint.Warning,
	Artifact: lint.ArtifactMeta, Needs: []lint.Fact{lint.FactManifest},
	Doc: lint.Doc{
		Summary: "A suppression (annotation, inline comment or config ignore) gives no reason.",
		Why: "A silenced finding without a reason cannot be reviewed: nobody can tell whether the risk was " +
			"accepted on purpose or the check was muted to get a build green, and the suppression outlives the person who added it.",
		Bad: "metadata:\n  annotations:\n    modellint.dev/ignore: \"MDL207\"\n" +
			"spec:\n  replicas: 1\n  strategy:\n    rollingUpdate: {maxUnavailable: 1}",
		Good: "metadata:\n  annotations:\n    modellint.dev/ignore: \"MDL207 -- a batch scorer: a pause while it rolls out is accepted\"\n" +
			"spec:\n  replicas: 1\n  strategy:\n    rollingUpdate: {maxUnavailable: 1}",
		Fix: "Write the reason after the rule IDs: `MDL205 -- reason` in the annotation, `# modellint:ignore MDL205 reason` in a comment, or `reason:` in a config ignore entry.",
	},
}

var suppressionExpired = &lint.Rule{
	ID: lint.ExpiredSuppressionRuleID, Name: "suppression-expired", Severity: lint.Warning,
	Artifact: lint.ArtifactMeta, Needs: []lint.Fact{lint.FactManifest},
	Doc: lint.Doc{
		Summary: "A config ignore entry is past its `expires:` date, and the findings it matched are reported again.",
		Why: "An expiry date makes an accepted risk temporary: after it, the findings come back. Without a word about " +
			"the entry, a build that was green turns red with findings nobody remembers accepting; this names the entry " +
			"and its date, so the next step is clear (fix the findings, or renew the entry on purpose). " +
			"`expires:` is read as YYYY-MM-DD: any other text is a config error (exit 2), never a suppression that lasts for ever. " +
			"Annotations, inline comments and baselines have no expiry.",
		Bad: "# .modellint.yaml\nignore:\n  - rule: MDL207\n    reason: one replica until the GPU quota is raised\n    expires: 2025-06-30\n" +
			"---\nspec:\n  replicas: 1\n  strategy:\n    rollingUpdate: {maxUnavailable: 1}",
		Good: "# .modellint.yaml\nignore:\n  - rule: MDL207\n    reason: one replica until the GPU quota is raised in Q3\n    expires: 2027-06-30\n" +
			"---\nspec:\n  replicas: 1\n  strategy:\n    rollingUpdate: {maxUnavailable: 1}",
		Fix: "Fix the findings the entry matched and delete it, or set a later `expires:` with a reason that still holds.",
	},
}

var manifestInvalid = &lint.Rule{
	ID: lint.InvalidRuleID, Name: "manifest-invalid", Severity: lint.Error,
	Artifact: lint.ArtifactMeta, Needs: []lint.Fact{lint.FactManifest},
	Doc: lint.Doc{
		Summary: "A workload has a field of the wrong type, or one its API does not have, so the API server rejects it.",
		Why: "`kubectl apply` fails with \"cannot unmarshal string into Go struct field\" and nothing of the object " +
			"is deployed. It usually means a template placeholder or a quoted number reached the manifest. " +
			"modellint reports it instead of stopping, and does not check the rest of that object until it is fixed. " +
			"A field the API does not have (`fsGroup` in a container's securityContext, a misspelt key) is rejected " +
			"too, by strict field validation, the default of `kubectl apply`: modellint decodes the built-in kinds " +
			"with the Kubernetes API types, KubeRay's RayCluster, RayJob and RayService (ray.io/v1) with " +
			"KubeRay's own (v1.5.0: a field only a newer KubeRay has is a warning, until --crds gives the cluster's CRD), and an Argo Rollout's pod " +
			"template as its CRD checks it, naming the field that was probably meant.\n\n" +
			"A custom object whose CustomResourceDefinition is in the linted files (a chart's crds/ and its " +
			"sub-charts' included), or in the file or directory `--crds` names (`kubectl get crd -o yaml`), is checked against that CRD's schema instead, as the API server checks it: " +
			"the fields its structural schema does not have, and the types, formats, enums, bounds and required " +
			"fields of its OpenAPI schema (not its CEL rules). That CRD is the version the cluster runs.",
		Bad:        "volumes:\n  - name: data\n    fc:\n      lun: <ADD LUN ID Here>",
		Good:       "volumes:\n  - name: data\n    fc:\n      lun: 0",
		Fix:        "Give the field a value of the type the Kubernetes API defines (a number, not a string; a list, not a scalar).",
		References: []string{"https://kubernetes.io/docs/reference/kubernetes-api/"},
	},
}
