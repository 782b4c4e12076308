package shell

import (
	"slices"
	"testing"
)

// TestFollowSwitches: the wrappers that change the user are taken off the
// program, and say who they switch to as written, for the caller to
// resolve in the image.
func TestFollowSwitches(t *testing.T) {
	cases := []struct {
		name, script string
		lookup       func(string) (string, bool)
		argv         []string
		want         []Switch
	}{
		{
			name:   "gosu with a user and a group",
			script: "exec gosu app:staff /usr/bin/server\n",
			argv:   []string{"/usr/bin/server"},
			want:   []Switch{{Wrapper: "gosu", Line: 1, User: "app", Group: "staff"}},
		},
		{
			name:   "su-exec with a uid, through its path",
			script: "#!/bin/sh\nexec /sbin/su-exec 1000 server -v\n",
			argv:   []string{"server", "-v"},
			want:   []Switch{{Wrapper: "su-exec", Line: 2, User: "1000"}},
		},
		{
			name:   "a user from the environment is resolved",
			script: "exec gosu \"$APP_USER\" /usr/bin/server\n",
			lookup: env("APP_USER", "app"),
			argv:   []string{"/usr/bin/server"},
			want:   []Switch{{Wrapper: "gosu", Line: 1, User: "app"}},
		},
		{
			name:   "a user known only at run time",
			script: "exec gosu \"$APP_USER\" /usr/bin/server\n",
			argv:   []string{"/usr/bin/server"},
			want:   []Switch{{Wrapper: "gosu", Line: 1, User: `"$APP_USER"`, Unknown: "$APP_USER is not set"}},
		},
		{
			name:   "setpriv's ids, groups and environment",
			script: "exec setpriv --reuid=app --regid 100 --clear-groups --reset-env -- /usr/bin/server\n",
			argv:   []string{"/usr/bin/server"},
			want:   []Switch{{Wrapper: "setpriv", Line: 1, User: "app", Group: "100", SetGroups: true, ResetEnv: true}},
		},
		{
			name:   "setpriv's group list",
			script: "exec setpriv --euid 1000 --egid 1000 --groups 10,20 /usr/bin/server\n",
			argv:   []string{"/usr/bin/server"},
			want:   []Switch{{Wrapper: "setpriv", Line: 1, User: "1000", Group: "1000", SetGroups: true, Groups: []string{"10", "20"}}},
		},
		{
			name:   "setpriv changing nothing of the user",
			script: "exec setpriv --no-new-privs --inh-caps -all /usr/bin/server\n",
			argv:   []string{"/usr/bin/server"},
			want:   []Switch{{Wrapper: "setpriv", Line: 1}},
		},
		{
			name:   "runuser -u",
			script: "exec runuser -u app -- /usr/bin/server --port 1\n",
			argv:   []string{"/usr/bin/server", "--port", "1"},
			want:   []Switch{{Wrapper: "runuser", Line: 1, User: "app"}},
		},
		{
			name:   "runuser's grouped options and long ones",
			script: "exec runuser -mu app --supp-group=video /usr/bin/server\n",
			argv:   []string{"/usr/bin/server"},
			want:   []Switch{{Wrapper: "runuser", Line: 1, User: "app", Group: "video", SetGroups: true, Groups: []string{"video"}, KeepEnv: true}},
		},
		{
			name:   "runuser without -u is the program",
			script: "exec runuser app -c /usr/bin/server\n",
			argv:   []string{"runuser", "app", "-c", "/usr/bin/server"},
		},
		{
			name:   "a shell the wrapper runs runs as its user",
			script: "exec gosu app sh -c 'exec su-exec 1000 /usr/bin/server'\n",
			argv:   []string{"/usr/bin/server"},
			want:   []Switch{{Wrapper: "gosu", Line: 1, User: "app"}, {Wrapper: "su-exec", Line: 1, User: "1000"}},
		},
		{
			name:   "chroot --userspec to the same root",
			script: "exec chroot --userspec=app:app --groups video,audio / /usr/bin/server\n",
			argv:   []string{"/usr/bin/server"},
			want:   []Switch{{Wrapper: "chroot", Line: 1, User: "app", Group: "app", SetGroups: true, Groups: []string{"video", "audio"}}},
		},
		{
			name:   "chroot without an id to change is no switch",
			script: "exec chroot --skip-chdir / /usr/bin/server\n",
			argv:   []string{"/usr/bin/server"},
		},
		{
			// Another root holds other files: chroot is the program.
			name:   "chroot to another root is the program",
			script: "exec chroot --userspec app /srv/jail /usr/bin/server\n",
			argv:   []string{"chroot", "--userspec", "app", "/srv/jail", "/usr/bin/server"},
		},
		{
			name:   "wrappers after the switch keep it",
			script: "exec gosu app tini -- env A=1 /usr/bin/server\n",
			argv:   []string{"/usr/bin/server"},
			want:   []Switch{{Wrapper: "gosu", Line: 1, User: "app"}},
		},
	}
	for _, c := range cases {
		got, err := Follow([]byte(c.script), "entrypoint.sh", nil, c.lookup)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(got.Commands) != 1 {
			t.Fatalf("%s: commands %+v, unresolved %q", c.name, got.Commands, got.Unresolved)
		}
		command := got.Commands[0]
		if !slices.Equal(command.Argv, c.argv) {
			t.Errorf("%s: argv %q, want %q", c.name, command.Argv, c.argv)
		}
		if !slices.EqualFunc(command.Switches, c.want, Switch.equal) {
			t.Errorf("%s: switches\n got %+v\nwant %+v", c.name, command.Switches, c.want)
		}
	}
}

// TestUnwrap reads the wrappers at the head of an argv as a script's.
func TestUnwrap(t *testing.T) {
	cases := []struct {
		argv   []string
		want   Wrapped
		wanted bool
	}{
		{argv: []string{"gosu", "app", "serve", "-v"}, wanted: true,
			want: Wrapped{Argv: []string{"serve", "-v"}, ExecBy: "gosu", Switches: []Switch{{Wrapper: "gosu", User: "app"}}}},
		{argv: []string{"/usr/bin/env", "A=1", "su-exec", "1000:1000", "tini", "--", "serve"}, wanted: true,
			want: Wrapped{Argv: []string{"serve"}, ExecBy: "tini", Switches: []Switch{{Wrapper: "su-exec", User: "1000", Group: "1000"}}, Env: []string{"A=1"}}},
		{argv: []string{"tini", "--", "serve"}, wanted: true, want: Wrapped{Argv: []string{"serve"}, ExecBy: "tini"}},
		{argv: []string{"serve", "--user", "app"}},
		{argv: []string{"gosu", "app"}},
		{argv: []string{"runuser", "app", "-c", "serve"}},
	}
	for _, c := range cases {
		got, ok := Unwrap(c.argv)
		if ok != c.wanted || !slices.Equal(got.Argv, c.want.Argv) || got.ExecBy != c.want.ExecBy ||
			!slices.EqualFunc(got.Switches, c.want.Switches, Switch.equal) || !slices.Equal(got.Env, c.want.Env) {
			t.Errorf("Unwrap(%q) = %+v, %v; want %+v, %v", c.argv, got, ok, c.want, c.wanted)
		}
	}
}
