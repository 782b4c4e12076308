package manifest

import (
	"slices"
	"strings"
	"testing"
)

func TestReadHeaders(t *testing.T) {
	tests := []struct {
		name   string
		source string
		want   []Header // nil with ok false
	}{
		{name: "block and flow metadata", source: "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: a # the name\n" +
			"  labels: {app: a}\n  namespace: team\nspec:\n  replicas: 1\n---\napiVersion: v1\nkind: Service\n" +
			"metadata: {name: b, labels: {app: b}, namespace: team}\n",
			want: []Header{{APIVersion: "apps/v1", Kind: "Deployment", Name: "a", Namespace: "team", End: 125},
				{APIVersion: "v1", Kind: "Service", Name: "b", Namespace: "team", Start: 129, End: 213}}},
		{name: "no namespace, CRLF, comments and an empty document", source: "# a comment\r\n---\r\n---\r\nkind: ConfigMap\r\n" +
			"apiVersion: v1\r\nmetadata:\r\n    name: c\r\ndata:\r\n  key: |\r\n    text\r\n",
			want: []Header{{APIVersion: "v1", Kind: "ConfigMap", Name: "c", Start: 23, End: 107}}},
		{name: "JSON", source: `{"apiVersion": "v1", "kind": "ConfigMap"}`},
		{name: "quoted values", source: "apiVersion: \"v1\"\nkind: 'ConfigMap' # a comment\nmetadata:\n  name: \"c d\"\n",
			want: []Header{{APIVersion: "v1", Kind: "ConfigMap", Name: "c d", End: 71}}},
		{name: "a quoted name to unescape", source: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"c\\td\"\n"},
		{name: "a quote within single quotes", source: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: 'it''s'\n"},
		{name: "a name that goes on", source: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n d\n"},
		{name: "a numeric name", source: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: 0x10}\n"},
		{name: "a key twice", source: "apiVersion: v1\nkind: ConfigMap\nkind: Secret\nmetadata: {name: c}\n"},
		{name: "an anchor", source: "apiVersion: v1\nkind: &k ConfigMap\nmetadata: {name: c}\n"},
		{name: "a flow value on two lines", source: "apiVersion: v1\nkind: ConfigMap\ndata: {a: b,\nkind: Secret}\nmetadata: {name: c}\n"},
		{name: "no kind", source: "apiVersion: v1\nmetadata: {name: c}\n"},
		{name: "a directive", source: "%YAML 1.2\n---\napiVersion: v1\nkind: ConfigMap\n"},
		{name: "content on the marker", source: "--- !tag\napiVersion: v1\nkind: ConfigMap\n"},
		{name: "a carriage return alone, a line break to YAML", source: "kind: A\napiVersion: A\r 0\n"},
		{name: "a line separator, a line break to YAML 1.1", source: "kind: A\napiVersion: A\u2028 0\n"},
		{name: "carriage returns before line feeds and at the end", source: "apiVersion: v1\r\nkind: ConfigMap\r\nmetadata: {name: c}\r",
			want: []Header{{APIVersion: "v1", Kind: "ConfigMap", Name: "c", End: 53}}},
		{name: "a tab in metadata", source: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: c\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ReadHeaders([]byte(tt.source))
			if ok != (tt.want != nil) {
				t.Fatalf("ok = %v, headers %+v", ok, got)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("headers %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("header %d: %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// FuzzReadHeaders checks that what ReadHeaders reads is what Load reads:
// a file it reads and Load loads has Load's objects, in order.
func FuzzReadHeaders(f *testing.F) {
	for _, seed := range []string{
		"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: a\n  namespace: team\nspec: {}\n",
		"apiVersion: v1\nkind: Service\nmetadata: {name: b, labels: {app: b}, namespace: team}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: s}\n",
		"kind: ConfigMap\napiVersion: v1\nmetadata:\n    name: c\ndata:\n  key: |\n    text\n",
		"apiVersion: v1\nkind: List\nitems: []\n",
		"apiVersion: \"v1\"\nkind: 'Secret'\nmetadata:\n  name: \"s\" # c\n  namespace: 'n'\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, source []byte) {
		headers, ok := ReadHeaders(source)
		if !ok || slices.ContainsFunc(headers, func(h Header) bool { return strings.HasSuffix(h.Kind, "List") }) {
			return // a List's items are Load's to read
		}
		file, err := Load("f.yaml", source)
		if err != nil {
			return
		}
		var objects []*Object
		for _, object := range file.Objects {
			if object.Base == "" {
				objects = append(objects, object)
			}
		}
		if len(objects) != len(headers) {
			if len(file.Skipped) > 0 || len(objects) != len(file.Objects) {
				return // a document Load skips, or a List: the caller parses
			}
			t.Fatalf("%d headers, %d objects", len(headers), len(objects))
		}
		for i, o := range objects {
			h := headers[i]
			if h.APIVersion != o.APIVersion || h.Kind != o.Kind || h.Name != o.Name || h.Namespace != o.Namespace {
				t.Fatalf("header %+v, object %s %s %s %s", h, o.APIVersion, o.Kind, o.Name, o.Namespace)
			}
		}
	})
}
