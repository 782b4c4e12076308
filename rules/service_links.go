package rules

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/server"
)

var serviceEnvCollision = &lint.Rule{
	ID: "MDL215", Name: "service-env-collision", Severity: lint.Error,
	Artifact: lint.ArtifactManifest, Needs: []lint.Fact{lint.FactManifest},
	Doc: lint.Doc{
		Summary: "A Service's name makes Kubernetes set an env var that the model server reads as one of its settings.",
		Why: "Kubernetes puts Docker-link variables for every Service of the namespace into every pod it starts: a " +
			"Service named vllm gives each pod VLLM_SERVICE_HOST, VLLM_SERVICE_PORT and VLLM_PORT=tcp://10.0.0.1:8000. " +
			"vLLM reads VLLM_PORT as the port of its internal communication and fails at start (\"ValueError: VLLM_PORT " +
			"'tcp://…' appears to be a URI\", \"invalid literal for int()\" in older releases). The same happens to TGI's " +
			"launcher with MASTER_PORT (a Service named master) and to NIM, MLServer and llama.cpp with their listen-port " +
			"variables (NIM_SERVER_PORT, MLSERVER_HTTP_PORT, LLAMA_ARG_PORT: Services named nim-server, mlserver-http, " +
			"llama-arg). The Service is often the server's own, so the pod crashes only once the Service exists, and in " +
			"every namespace that has one. Services in the linted files are checked; not reported when the pod sets " +
			"enableServiceLinks: false, when the container sets the variable itself, for headless and ExternalName " +
			"Services (they get no variables), nor for KServe pods (in its Serverless mode Knative turns service links off).",
		Bad: `containers:
  - name: vllm
    image: vllm/vllm-openai:v0.11.0
    args: [--model=/models/llama]
---
apiVersion: v1
kind: Service
metadata:
  name: vllm
spec:
  selector: {app: vllm}
  ports: [{port: 8000}]`,
		Good: `spec:
  template:
    spec:
      enableServiceLinks: false
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: [--model=/models/llama]
---
apiVersion: v1
kind: Service
metadata:
  name: vllm
spec:
  selector: {app: vllm}
  ports: [{port: 8000}]`,
		Fix: "Set enableServiceLinks: false in the pod spec (the server still finds Services through DNS), or rename the " +
			"Service (vllm-api, not vllm).",
		References: []string{
			"https://kubernetes.io/docs/concepts/services-networking/service/#environment-variables",
			"https://kubernetes.io/docs/tutorials/services/connect-applications-service/#accessing-the-service",
			"https://docs.vllm.ai/en/stable/configuration/env_vars/",
			"https://github.com/vllm-project/vllm/issues/34199",
			"https://huggingface.co/docs/text-generation-inference/reference/launcher",
		},
	},
	Check: checkServiceEnvCollision,
}

// linkedVariables are the variables of a runtime that a Service can set.
func linkedVariables(runtime *server.Runtime) []server.LinkedVariable {
	variables := slices.Clone(runtime.LinkedVariables)
	for _, port := range runtime.Ports {
		for _, name := range port.Env {
			// PORT alone (TGI) needs a Service with an empty name.
			if prefix, ok := strings.CutSuffix(name, "_PORT"); ok && prefix != "" {
				variables = append(variables, server.LinkedVariable{Name: name, Effect: "reads it as the port to listen on and fails at " +
					"start: tcp://… is no port number"})
			}
		}
	}
	return variables
}

// serviceLinkName is the variable Kubernetes sets to tcp://<cluster IP>:<port>
// for a Service: its name upper-cased, '-' → '_', then _PORT.
func serviceLinkName(service string) string {
	return strings.ToUpper(strings.ReplaceAll(service, "-", "_")) + "_PORT"
}

func checkServiceEnvCollision(pass *lint.Pass) {
	w := pass.Workload()
	serving := servingContainers(pass)
	if len(serving) == 0 {
		return
	}
	if w.Platform == "kserve" {
		pass.Skip("KServe builds the pod, and in its Serverless mode Knative turns service links off")
		return
	}
	reads := map[*manifest.Container][]server.LinkedVariable{}
	for _, c := range serving {
		if variables := linkedVariables(c.Runtime); len(variables) > 0 {
			reads[c] = variables
		}
	}
	if len(reads) == 0 {
		pass.Skip("no serving container reads a variable that a Service link sets")
		return
	}
	if links := w.Spec.EnableServiceLinks; links != nil && !*links {
		return
	}
	at := func(c *manifest.Container) string {
		// The line to change is enableServiceLinks when it is written (true).
		if path := manifest.JoinPath(w.SpecPath, "enableServiceLinks"); w.Object.Has(path) {
			return path
		}
		return c.Path
	}
	for _, link := range linkingServices(pass) {
		for _, c := range serving {
			for _, variable := range reads[c] {
				if variable.Name != link.variable || hasEnv(c, variable.Name) {
					continue
				}
				pass.Reportf(at(c),
					"Service %q (%s) makes Kubernetes set %s=%s in this pod, and %s %s; set "+
						"enableServiceLinks: false in the pod spec or rename the Service",
					link.name, link.where, variable.Name, link.value, describe(c), variable.Effect)
			}
		}
	}
}

// serviceLink is the <NAME>_PORT variable one Service gives the pods of its
// namespace.
type serviceLink struct {
	name, where     string // the Service and its file:line
	variable, value string // VLLM_PORT, tcp://<cluster IP>:8000
}

// linkingServices returns the Services in the linted files that give the
// workload's pods link variables: those of its namespace (or with none
// written) that have a cluster IP and a port.
func linkingServices(pass *lint.Pass) []serviceLink {
	namespace := pass.Workload().Object.Namespace
	return pass.Objects.DerivedIn(namespace, "service links", func() any {
		return namespaceServiceLinks(pass.Objects, namespace)
	}).([]serviceLink)
}

func namespaceServiceLinks(objects *manifest.Set, namespace string) []serviceLink {
	var links []serviceLink
	for _, object := range objects.OfKindsIn(namespace, "Service") {
		if object.Kind != "Service" || object.Group() != "" {
			continue
		}
		if object.Namespace != namespace && object.Namespace != "" && namespace != "" {
			continue
		}
		var service corev1.Service
		if object.Decode(&service) != nil || len(service.Spec.Ports) == 0 {
			continue
		}
		// The kubelet skips Services without a cluster IP.
		if service.Spec.ClusterIP == corev1.ClusterIPNone || service.Spec.Type == corev1.ServiceTypeExternalName {
			continue
		}
		first := service.Spec.Ports[0] // Docker links name the first port
		protocol := strings.ToLower(string(first.Protocol))
		if protocol == "" {
			protocol = "tcp"
		}
		ip := service.Spec.ClusterIP
		if ip == "" {
			ip = "<cluster IP>"
		}
		file, pos := object.Where("metadata.name")
		links = append(links, serviceLink{
			name: object.Name, where: fmt.Sprintf("%s:%d", file, pos.Line),
			variable: serviceLinkName(object.Name), value: fmt.Sprintf("%s://%s:%d", protocol, ip, first.Port),
		})
	}
	return links
}

// hasEnv reports whether the container sets a variable itself, which wins
// over a Service link.
func hasEnv(c *manifest.Container, name string) bool {
	for _, env := range c.Env {
		if env.Name == name {
			return true
		}
	}
	return false
}
