package manifest

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestReleasedSlabsLeaveFilesAlone: the nodes of a stream read to its end
// go to the next stream's reader; nothing of the first file may be among
// them. A file read before other streams reads the same as one read after.
func TestReleasedSlabsLeaveFilesAlone(t *testing.T) {
	stream := func(prefix string, n int) []byte {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %s-%d\n  labels: {app: %s}\n"+
				"spec:\n  template:\n    spec:\n      containers:\n      - name: server\n        image: %s:%d\n"+
				"        args: [--port, \"%d\"]\n", prefix, i, prefix, prefix, i, 8000+i)
		}
		return []byte(b.String())
	}
	read := func(file *File) []string {
		var out []string
		for _, object := range file.Objects {
			_, at := object.Where("spec.template.spec.containers[0].image")
			out = append(out, fmt.Sprintf("%v %+v", object.Plain(), at))
		}
		return out
	}
	first, err := Load("a.yaml", stream("a", 40))
	if err != nil {
		t.Fatal(err)
	}
	before := read(first)
	for i := range 20 {
		if _, err := Load("b.yaml", stream(fmt.Sprintf("b%d", i), 60)); err != nil {
			t.Fatal(err)
		}
	}
	if after := read(first); !reflect.DeepEqual(before, after) {
		t.Errorf("a file read before others changed:\n%v\nnow\n%v", before[:2], after[:2])
	}
	again, err := Load("a.yaml", stream("a", 40))
	if err != nil {
		t.Fatal(err)
	}
	if got := read(again); !reflect.DeepEqual(before, got) {
		t.Errorf("a file read after others reads otherwise:\n%v\nnow\n%v", before[:2], got[:2])
	}
}
