package launch

import (
	"slices"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/image/launch/shell"
)

// TestResolveUser resolves the image's USER as runc does: a number as is,
// a name and a group by their entries, and says which it cannot find.
func TestResolveUser(t *testing.T) {
	_, img := startCase{name: "accounts", spec: withArgv("/bin/sh"), files: []layerFile{
		regular("etc/group", 0o644, "root:x:0:\nvideo:x:44:app\napp:x:1000:\n"),
	}}.replay(t)
	cases := []struct {
		written string
		user    string
		groups  []uint32
		unknown string
	}{
		{written: "", user: "uid 0 (root)", groups: []uint32{0}},
		{written: "app", user: "uid 1000 (app)", groups: []uint32{1000, 44}},
		{written: "1000", user: "uid 1000 (app)", groups: []uint32{1000, 44}},
		{written: "app:video", user: "uid 1000 (app)", groups: []uint32{44, 44}},
		{written: "app:45", user: "uid 1000 (app)", groups: []uint32{45, 44}},
		// An empty group is no group: the entry's gid.
		{written: "app:", user: "uid 1000 (app)", groups: []uint32{1000, 44}},
		{written: "app:staff", user: "uid 1000 (app)", groups: []uint32{1000, 44}, unknown: `group "staff" is not in the image's /etc/group`},
		{written: "svc", user: "uid 0", groups: []uint32{0}, unknown: `user "svc" is not in the image's /etc/passwd`},
		// The user is what runc names first.
		{written: "svc:staff", user: "uid 0", groups: []uint32{0}, unknown: `user "svc" is not in the image's /etc/passwd`},
	}
	for _, c := range cases {
		img.Config = &v1.ConfigFile{Config: v1.Config{User: c.written}}
		got := ResolveUser(Spec{}, img)
		if got.String() != c.user || !slices.Equal(got.Groups, c.groups) || got.Unknown != c.unknown || got.Written != c.written {
			t.Errorf("USER %q: %s groups %v unknown %q, want %s groups %v unknown %q", c.written, got, got.Groups, got.Unknown, c.user, c.groups, c.unknown)
		}
	}
	noPasswd := &image.Image{Config: &v1.ConfigFile{Config: v1.Config{User: "app"}}}
	if got := ResolveUser(Spec{}, noPasswd); !got.NoPasswd || got.Unknown != `user "app" cannot be looked up: the image has no /etc/passwd` {
		t.Errorf("no /etc/passwd: NoPasswd %v unknown %q", got.NoPasswd, got.Unknown)
	}
}

// TestSwitchUserGroupsAndHome: the gid, groups and HOME each wrapper
// leaves the program with.
func TestSwitchUserGroupsAndHome(t *testing.T) {
	_, img := startCase{name: "accounts", spec: withArgv("/bin/sh"), files: []layerFile{
		regular("etc/group", 0o644, "root:x:0:\nvideo:x:44:app\napp:x:1000:\n"),
	}}.replay(t)
	root := User{Groups: []uint32{0, 7}}
	cases := []struct {
		name     string
		sw       shell.Switch
		user     string
		groups   []uint32
		setsHome bool
		home     string
	}{
		{name: "runuser sets HOME", sw: shell.Switch{Wrapper: "runuser", User: "app"},
			user: "uid 1000 (app, via runuser)", groups: []uint32{1000, 44}, setsHome: true, home: "/home/app"},
		{name: "runuser -m keeps it", sw: shell.Switch{Wrapper: "runuser", User: "app", KeepEnv: true},
			user: "uid 1000 (app, via runuser)", groups: []uint32{1000, 44}, home: "/home/app"},
		{name: "setpriv --reset-env sets HOME", sw: shell.Switch{Wrapper: "setpriv", User: "app", ResetEnv: true},
			user: "uid 1000 (app, via setpriv)", groups: []uint32{0, 0, 7}, setsHome: true, home: "/home/app"},
		{name: "setpriv keeps the groups", sw: shell.Switch{Wrapper: "setpriv", User: "app"},
			user: "uid 1000 (app, via setpriv)", groups: []uint32{0, 0, 7}},
		{name: "setpriv --init-groups", sw: shell.Switch{Wrapper: "setpriv", User: "app", InitGroups: true},
			user: "uid 1000 (app, via setpriv)", groups: []uint32{0, 44}},
		{name: "setpriv --regid by number", sw: shell.Switch{Wrapper: "setpriv", User: "1000", Group: "45", SetGroups: true},
			user: "uid 1000 (app, via setpriv)", groups: []uint32{45}},
		{name: "su-exec with a group", sw: shell.Switch{Wrapper: "su-exec", User: "app", Group: "video"},
			user: "uid 1000 (app, via su-exec)", groups: []uint32{44}, setsHome: true, home: "/home/app"},
	}
	for _, c := range cases {
		got := SwitchUser(root, c.sw, img)
		if got.Fails != "" || got.User.String() != c.user || !slices.Equal(got.User.Groups, c.groups) || got.SetsHome != c.setsHome || got.Home != c.home {
			t.Errorf("%s: %s groups %v sets HOME %v to %q (fails %q), want %s groups %v sets HOME %v to %q",
				c.name, got.User, got.User.Groups, got.SetsHome, got.Home, got.Fails, c.user, c.groups, c.setsHome, c.home)
		}
	}
}

// TestSetprivAsNonRoot: setpriv run by a user other than root fails when
// it sets the groups or changes an id, and runs when the ids it is given
// are the ones it has.
func TestSetprivAsNonRoot(t *testing.T) {
	_, img := startCase{name: "accounts", spec: withArgv("/bin/sh")}.replay(t)
	app := User{UID: 1000, GID: 1000, Groups: []uint32{1000}, Name: "app"}
	cases := []struct {
		name   string
		sw     shell.Switch
		denied bool
	}{
		{name: "--clear-groups", sw: shell.Switch{Wrapper: "setpriv", User: "app", SetGroups: true}, denied: true},
		{name: "--init-groups", sw: shell.Switch{Wrapper: "setpriv", User: "app", InitGroups: true}, denied: true},
		{name: "--reuid its own name", sw: shell.Switch{Wrapper: "setpriv", User: "app"}},
		{name: "--reuid its own uid", sw: shell.Switch{Wrapper: "setpriv", User: "1000"}},
		{name: "--reuid root", sw: shell.Switch{Wrapper: "setpriv", User: "root"}, denied: true},
		{name: "--regid its own gid", sw: shell.Switch{Wrapper: "setpriv", Group: "1000"}},
		{name: "--regid 0", sw: shell.Switch{Wrapper: "setpriv", Group: "0"}, denied: true},
	}
	for _, c := range cases {
		got := SwitchUser(app, c.sw, img)
		if got.Denied != c.denied || (got.Fails != "") != c.denied {
			t.Errorf("%s: denied %v (fails %q), want denied %v", c.name, got.Denied, got.Fails, c.denied)
		}
	}
}
