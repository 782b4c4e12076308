package launch

import (
	"io/fs"
	"reflect"
	"testing"
)

func TestBlockingDir(t *testing.T) {
	_, img := startCase{name: "blocking", spec: withArgv("/bin/sh"), files: []layerFile{
		directory("root", 0o700),
		directory("root/.local", 0o700),
		directory("root/.local/bin", 0o755),
		elfFile("root/.local/bin/serve", "stub-amd64"),
	}}.replay(t)
	root, app := User{UID: 0, Groups: []uint32{0}}, User{UID: 1000, GID: 1000, Groups: []uint32{1000}}
	cases := []struct {
		user User
		path string
		want string
		all  []Dir
	}{
		// The topmost, as the kernel meets it; opening it alone leaves
		// uid 1000 stopped at /root/.local.
		{user: app, path: "/root/.local/bin/serve", want: "/root",
			all: []Dir{{Path: "/root", Mode: fs.ModeDir | 0o700}, {Path: "/root/.local", Mode: fs.ModeDir | 0o700}}},
		// Past a blocking directory the walk stops where the path does.
		{user: app, path: "/root/nope/serve", want: "/root", all: []Dir{{Path: "/root", Mode: fs.ModeDir | 0o700}}},
		{user: root, path: "/root/.local/bin/serve"},
		{user: app, path: "/usr/bin/sh"},
		{user: app, path: "/nope/serve"},
		{user: app, path: "/"},
	}
	for _, tc := range cases {
		if got, _ := BlockingDir(img.FS(), tc.user, tc.path); got != tc.want {
			t.Errorf("BlockingDir(%s, %q) = %q, want %q", tc.user, tc.path, got, tc.want)
		}
		if got := BlockingDirs(img.FS(), tc.user, tc.path); !reflect.DeepEqual(got, tc.all) {
			t.Errorf("BlockingDirs(%s, %q) = %+v, want %+v", tc.user, tc.path, got, tc.all)
		}
	}
}
