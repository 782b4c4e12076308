package manifest

import "testing"

// The keys and common values of Kubernetes objects are read from the
// shared text; a document's own text holds only the rest.
func TestSharedTextHoldsTheCommonStrings(t *testing.T) {
	file, err := Load("s.yaml", []byte("apiVersion: v1\nkind: Service\nmetadata: {name: inference-gateway}\n"+
		"spec:\n  ports: [{port: 8080, protocol: TCP}]\n  selector: {app: inference-gateway}\n"))
	if err != nil {
		t.Fatal(err)
	}
	object := file.Objects[0]
	if text := object.Doc.fields.text; text != "inference-gateway8080" {
		t.Errorf("the document's own text is %q, want only its name and port", text)
	}
	if object.Kind != "Service" || object.Name != "inference-gateway" || object.stringAt("spec", "ports[0]", "protocol") != "TCP" ||
		object.stringAt("spec", "selector", "app") != "inference-gateway" {
		t.Errorf("read back %s/%s, protocol %q", object.Kind, object.Name, object.stringAt("spec", "ports[0]", "protocol"))
	}
	_, shared := sharedText()
	for _, key := range []string{"containers", "startupProbe", "failureThreshold", "matchLabels", "volumeClaimTemplates", "Deployment", "apps/v1"} {
		if _, ok := shared[key]; !ok {
			t.Errorf("%q is not shared", key)
		}
	}
}
