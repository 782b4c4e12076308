package launch

import "testing"

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
	}{
		{user: app, path: "/root/.local/bin/serve", want: "/root"}, // the topmost, as the kernel meets it
		{user: root, path: "/root/.local/bin/serve"},
		{user: app, path: "/usr/bin/sh"},
		{user: app, path: "/nope/serve"},
		{user: app, path: "/"},
	}
	for _, tc := range cases {
		if got, _ := BlockingDir(img.FS(), tc.user, tc.path); got != tc.want {
			t.Errorf("BlockingDir(%s, %q) = %q, want %q", tc.user, tc.path, got, tc.want)
		}
	}
}
