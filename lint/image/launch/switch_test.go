package launch

import (
	"archive/tar"
	"path"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/image/launch/shell"
)

// entrypoint is an image whose entrypoint script runs line, with gosu,
// su-exec and setpriv in PATH and the server pip put in root's home.
func entrypoint(line string, more ...layerFile) []layerFile {
	files := append([]layerFile{
		regular("entrypoint.sh", 0o755, "#!/bin/sh\n"+line+"\n"),
		elfFile("usr/bin/gosu", "stub-amd64"),
		elfFile("usr/bin/su-exec", "stub-amd64"),
		elfFile("usr/bin/setpriv", "stub-amd64"),
		regular("etc/group", 0o644, "root:x:0:\nvideo:x:44:app\napp:x:1000:\n"),
	}, userLocalBin...)
	return append(files, more...)
}

// TestSwitchedUser: the program a wrapper switches the user for is
// checked as that user, and the run says who it runs as.
func TestSwitchedUser(t *testing.T) {
	cases := []struct {
		startCase
		problem Reason // the one problem, 0 for none
		user    string // the run's user, as messages name it
		groups  []uint32
		home    string // the HOME a wrapper set, "" when none did
		// homeUnknown says a wrapper sets HOME to what is known only at
		// run time.
		homeUnknown bool
		fails       string // a part of the switch's failure
	}{
		{
			// As root it runs; as app, /root keeps it out.
			startCase: startCase{name: "gosu to app", spec: withArgv("/entrypoint.sh"), files: entrypoint("exec gosu app /root/.local/bin/serve")},
			problem:   ParentNotSearchable, user: "uid 1000 (app, via gosu)", groups: []uint32{1000, 44}, home: "/home/app",
		},
		{
			startCase: startCase{name: "gosu to root stays root", spec: withArgv("/entrypoint.sh"), files: entrypoint("exec gosu root /root/.local/bin/serve")},
			user:      "uid 0 (root, via gosu)", groups: []uint32{0}, home: "/root",
		},
		{
			// An explicit group keeps the memberships out.
			startCase: startCase{name: "gosu with a group", spec: withArgv("/entrypoint.sh"), files: entrypoint("exec gosu app:video /usr/bin/sh")},
			user:      "uid 1000 (app, via gosu)", groups: []uint32{44}, home: "/home/app",
		},
		{
			startCase: startCase{name: "gosu to a uid without an entry keeps the gid", spec: withArgv("/entrypoint.sh"), files: entrypoint("exec gosu 4242 /usr/bin/sh")},
			user:      "uid 4242 (via gosu)", groups: []uint32{0}, home: "/",
		},
		{
			startCase: startCase{name: "su-exec sets HOME", spec: withArgv("/entrypoint.sh"), files: entrypoint("exec su-exec app /usr/bin/sh")},
			user:      "uid 1000 (app, via su-exec)", groups: []uint32{1000, 44}, home: "/home/app",
		},
		{
			startCase: startCase{name: "su-exec to a uid without an entry", spec: withArgv("/entrypoint.sh"), files: entrypoint("exec su-exec 4242 /usr/bin/sh")},
			user:      "uid 4242 (via su-exec)", groups: []uint32{0}, home: "/",
		},
		{
			// setpriv keeps root's gid unless told otherwise.
			startCase: startCase{name: "setpriv", spec: withArgv("/entrypoint.sh"), files: entrypoint("exec setpriv --reuid=1000 --clear-groups /root/.local/bin/serve")},
			problem:   ParentNotSearchable, user: "uid 1000 (app, via setpriv)", groups: []uint32{0},
		},
		{
			startCase: startCase{name: "a name gosu cannot find", spec: withArgv("/entrypoint.sh"), files: entrypoint("exec gosu svc /usr/bin/sh")},
			problem:   UserSwitchFails, user: "uid 0 (root)",
			fails: `unable to find user svc: no matching entries in passwd file`,
		},
		{
			startCase: startCase{name: "gosu run as app", spec: asApp(withArgv("/entrypoint.sh")), files: entrypoint("exec gosu app /usr/bin/sh")},
			problem:   UserSwitchFails, user: "uid 1000 (app)",
			fails: `failed switching to \"app\": operation not permitted`,
		},
		{
			// A setuid-root gosu switches whoever runs it.
			startCase: startCase{name: "setuid gosu run as app", spec: asApp(withArgv("/entrypoint.sh")), files: entrypoint("exec gosu root /root/.local/bin/serve",
				layerFile{header: tar.Header{Name: "usr/bin/gosu", Typeflag: tar.TypeReg, Mode: 0o4755}, elf: "stub-amd64"})},
			user: "uid 0 (root, via gosu)", groups: []uint32{0}, home: "/root",
		},
		{
			// allowPrivilegeEscalation: false: the setuid bit is ignored.
			startCase: startCase{name: "setuid gosu without privilege escalation", spec: noNewPrivileges(asApp(withArgv("/entrypoint.sh"))),
				files: entrypoint("exec gosu root /usr/bin/sh",
					layerFile{header: tar.Header{Name: "usr/bin/gosu", Typeflag: tar.TypeReg, Mode: 0o4755}, elf: "stub-amd64"})},
			problem: UserSwitchFails, user: "uid 1000 (app)", fails: "operation not permitted",
		},
		{
			// Whether an added CAP_SETUID reaches a non-root process is the
			// runtime's call: nothing is reported.
			startCase: startCase{name: "gosu with CAP_SETUID added", spec: withCapabilities(asApp(withArgv("/entrypoint.sh")), "SETUID", "SETGID"),
				files: entrypoint("exec gosu app /usr/bin/sh")},
			user: "the user gosu switches to (whether gosu may switch is not known)",
		},
		{
			// Who $APP_USER is is known only at run time: nothing is reported.
			startCase: startCase{name: "a user set at run time", spec: withArgv("/entrypoint.sh"), files: entrypoint("exec gosu \"$APP_USER\" /root/.local/bin/serve")},
			user:      "the user gosu switches to ($APP_USER is not set)", homeUnknown: true,
		},
		{
			// The script adds the user itself: the image's accounts are not
			// the ones gosu reads.
			startCase: startCase{name: "a user the script adds", spec: withArgv("/entrypoint.sh"),
				files: entrypoint("useradd -u \"$PUID\" svc\nexec gosu svc /root/.local/bin/serve")},
			user: "the user gosu switches to (/entrypoint.sh line 2 may change the accounts at start (useradd))",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			analysis, _ := c.replay(t)
			if len(analysis.Runs) != 1 {
				t.Fatalf("runs %q, problems %+v, unchecked %q", runsOf(analysis), analysis.Problems, analysis.Unchecked)
			}
			switch {
			case c.problem == 0 && len(analysis.Problems) > 0:
				t.Errorf("problems: %+v", analysis.Problems)
			case c.problem != 0 && (len(analysis.Problems) != 1 || analysis.Problems[0].Reason != c.problem):
				t.Fatalf("problems: got %+v, want one %v", analysis.Problems, c.problem)
			case c.problem != 0:
				p := analysis.Problems[0]
				if p.User.String() != c.user {
					t.Errorf("problem's user %q, want %q", p.User, c.user)
				}
				if !strings.Contains(p.Switch, strings.ReplaceAll(c.fails, `\"`, `"`)) {
					t.Errorf("switch failure %q, want it to say %q", p.Switch, c.fails)
				}
			}
			run := analysis.Runs[0]
			if c.problem == UserSwitchFails {
				return
			}
			if run.User.String() != c.user {
				t.Errorf("run's user %q, want %q", run.User, c.user)
			}
			if c.groups != nil && !equalUint32(run.User.Groups, c.groups) {
				t.Errorf("run's groups %v, want %v", run.User.Groups, c.groups)
			}
			if run.HomeSet != (c.home != "" || c.homeUnknown) || run.Home != c.home {
				t.Errorf("run's HOME %q (set %v), want %q", run.Home, run.HomeSet, c.home)
			}
		})
	}
}

func equalUint32(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestSwitchUserSpecs resolves the user specs of each wrapper as the
// wrapper does.
func TestSwitchUserSpecs(t *testing.T) {
	_, img := startCase{name: "accounts", spec: withArgv("/bin/sh"), files: []layerFile{
		regular("etc/group", 0o644, "root:x:0:\nvideo:x:44:app\napp:x:1000:\n"),
	}}.replay(t)
	root := User{Groups: []uint32{0}}
	cases := []struct {
		name  string
		sw    shell.Switch
		user  string
		gid   uint32
		fails string
	}{
		{name: "runuser", sw: shell.Switch{Wrapper: "runuser", User: "app"}, user: "uid 1000 (app, via runuser)", gid: 1000},
		{name: "runuser by uid", sw: shell.Switch{Wrapper: "runuser", User: "1000"}, fails: "runuser: user 1000 does not exist"},
		{name: "runuser -G", sw: shell.Switch{Wrapper: "runuser", User: "app", Group: "video", SetGroups: true, Groups: []string{"video"}}, user: "uid 1000 (app, via runuser)", gid: 44},
		{name: "s6-setuidgid", sw: shell.Switch{Wrapper: "s6-setuidgid", User: "app"}, user: "uid 1000 (app, via s6-setuidgid)", gid: 1000},
		{name: "s6-setuidgid uid:gid", sw: shell.Switch{Wrapper: "s6-setuidgid", User: "4242:4242"}, user: "uid 4242 (via s6-setuidgid)", gid: 4242},
		{name: "s6-setuidgid unknown", sw: shell.Switch{Wrapper: "s6-setuidgid", User: "abc"}, fails: "unknown user"},
		{name: "s6-applyuidgid", sw: shell.Switch{Wrapper: "s6-applyuidgid", User: "1000", Group: "1000"}, user: "uid 1000 (app, via s6-applyuidgid)", gid: 1000},
		{name: "setpriv by name", sw: shell.Switch{Wrapper: "setpriv", User: "app", Group: "app", InitGroups: true}, user: "uid 1000 (app, via setpriv)", gid: 1000},
		{name: "setpriv --init-groups without an entry", sw: shell.Switch{Wrapper: "setpriv", User: "4242", InitGroups: true}, fails: "--init-groups requires an user"},
		{name: "gosu unknown group", sw: shell.Switch{Wrapper: "gosu", User: "app", Group: "staff"}, fails: "unable to find group staff"},
		{name: "su-exec unknown", sw: shell.Switch{Wrapper: "su-exec", User: "svc"}, fails: "getpwnam(svc)"},
		{name: "chroot by name", sw: shell.Switch{Wrapper: "chroot", User: "app"}, user: "uid 1000 (app, via chroot)", gid: 1000},
		{name: "chroot by uid with an entry", sw: shell.Switch{Wrapper: "chroot", User: "1000"}, user: "uid 1000 (app, via chroot)", gid: 1000},
		{name: "chroot uid:gid without an entry", sw: shell.Switch{Wrapper: "chroot", User: "4242", Group: "4242"}, user: "uid 4242 (via chroot)", gid: 4242},
		{name: "chroot uid without an entry or a group", sw: shell.Switch{Wrapper: "chroot", User: "4242"}, fails: "no group specified for unknown uid: 4242"},
		{name: "chroot unknown name", sw: shell.Switch{Wrapper: "chroot", User: "svc", Group: "svc"}, fails: "chroot: invalid user"},
		{name: "chroot unknown group", sw: shell.Switch{Wrapper: "chroot", User: "app", Group: "staff"}, fails: "chroot: invalid group"},
	}
	for _, c := range cases {
		got := SwitchUser(root, c.sw, img)
		if c.fails != "" {
			if !strings.Contains(got.Fails, c.fails) {
				t.Errorf("%s: fails %q, want it to say %q", c.name, got.Fails, c.fails)
			}
			continue
		}
		if got.Fails != "" || got.User.String() != c.user || got.User.GID != c.gid {
			t.Errorf("%s: %s gid %d (fails %q), want %s gid %d", c.name, got.User, got.User.GID, got.Fails, c.user, c.gid)
		}
	}
}

func noNewPrivileges(spec Spec) Spec {
	spec.NoNewPrivileges = true
	return spec
}

func withCapabilities(spec Spec, capabilities ...string) Spec {
	spec.AddedCapabilities = capabilities
	return spec
}

// TestForContainerSwitchFacts: the container's fields that decide whether
// a wrapper may switch the user, and which accounts it reads.
func TestForContainerSwitchFacts(t *testing.T) {
	no := false
	container := &corev1.Container{
		Command: []string{"/entrypoint.sh"},
		SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: &no,
			Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"SETUID"}}},
		VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}, {Name: "passwd", MountPath: "/etc/passwd", SubPath: "passwd"}},
	}
	spec := ForContainer(container, nil, &image.Image{})
	if !spec.NoNewPrivileges || !slices.Equal(spec.AddedCapabilities, []string{"SETUID"}) ||
		spec.AccountsMounted != `volume "passwd" is mounted at /etc/passwd` {
		t.Errorf("NoNewPrivileges %v, AddedCapabilities %q, AccountsMounted %q", spec.NoNewPrivileges, spec.AddedCapabilities, spec.AccountsMounted)
	}
	container.VolumeMounts = []corev1.VolumeMount{{Name: "etc", MountPath: "/etc"}}
	if spec := ForContainer(container, nil, &image.Image{}); spec.AccountsMounted != `volume "etc" is mounted at /etc` {
		t.Errorf("a volume at /etc: AccountsMounted %q", spec.AccountsMounted)
	}
	container.VolumeMounts = []corev1.VolumeMount{{Name: "etcetera", MountPath: "/etcetera"}}
	if spec := ForContainer(container, nil, &image.Image{}); spec.AccountsMounted != "" {
		t.Errorf("a volume beside /etc: AccountsMounted %q", spec.AccountsMounted)
	}
}

// TestSupervisordUser: a program's user= runs it as that user; a name
// supervisord cannot find, or a supervisord that is not root, fails it.
func TestSupervisordUser(t *testing.T) {
	supervisord := func(user string) []layerFile {
		return append([]layerFile{
			elfFile("usr/bin/supervisord", "stub-amd64"),
			regular("etc/supervisord.conf", 0o644, "[supervisord]\nnodaemon=true\n[program:api]\ncommand=/root/.local/bin/serve\nuser="+user+"\n"),
		}, userLocalBin...)
	}
	cases := []struct {
		startCase
		problem Reason
		user    string
	}{
		{startCase: startCase{name: "user app", spec: withArgv("supervisord"), files: supervisord("app")},
			problem: ParentNotSearchable, user: "uid 1000 (app, via supervisord)"},
		{startCase: startCase{name: "user root", spec: withArgv("supervisord"), files: supervisord("root")},
			user: "uid 0 (root, via supervisord)"},
		{startCase: startCase{name: "user not in passwd", spec: withArgv("supervisord"), files: supervisord("svc")},
			problem: UserSwitchFails, user: "uid 0 (root)"},
		{startCase: startCase{name: "supervisord not root", spec: asApp(withArgv("supervisord")), files: supervisord("root")},
			problem: UserSwitchFails, user: "uid 1000 (app)"},
		{startCase: startCase{name: "supervisord not root, the program as itself", spec: asApp(withArgv("supervisord")), files: supervisord("app")},
			problem: ParentNotSearchable, user: "uid 1000 (app, via supervisord)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			analysis, _ := c.replay(t)
			if len(analysis.Runs) != 2 || !analysis.Runs[0].Side {
				t.Fatalf("runs %q", runsOf(analysis))
			}
			switch {
			case c.problem == 0 && len(analysis.Problems) > 0:
				t.Errorf("problems: %+v", analysis.Problems)
			case c.problem != 0 && (len(analysis.Problems) != 1 || analysis.Problems[0].Reason != c.problem):
				t.Fatalf("problems: got %+v, want one %v", analysis.Problems, c.problem)
			case c.problem != 0 && analysis.Problems[0].User.String() != c.user:
				t.Errorf("problem's user %q, want %q", analysis.Problems[0].User, c.user)
			case c.problem == 0 && analysis.Runs[0].User.String() != c.user:
				t.Errorf("run's user %q, want %q", analysis.Runs[0].User, c.user)
			}
		})
	}
}

// TestSwitchedArgv: a wrapper that switches the user at the head of the
// container's own argv (command: [gosu, app, serve]) is followed as the
// same words in a script are: the switch is checked against the image's
// accounts, and the program it execs is checked as the user it switches
// to.
func TestSwitchedArgv(t *testing.T) {
	wrappers := append([]layerFile{
		elfFile("usr/bin/gosu", "stub-amd64"),
		elfFile("usr/bin/su-exec", "stub-amd64"),
		elfFile("usr/bin/setpriv", "stub-amd64"),
		elfFile("usr/bin/runuser", "stub-amd64"),
		elfFile("usr/bin/s6-setuidgid", "stub-amd64"),
		elfFile("usr/bin/chroot", "stub-amd64"),
		elfFile("usr/bin/env", "stub-amd64"),
		regular("etc/group", 0o644, "root:x:0:\nvideo:x:44:app\napp:x:1000:\n"),
	}, userLocalBin...)
	cases := []struct {
		startCase
		problem Reason // the one problem, 0 for none
		user    string // the run's (or the failing problem's) user
		argv    string // the run's argv
		file    string // the accounts file a failing switch names
		env     []string
	}{
		{
			startCase: startCase{name: "gosu to app", spec: withArgv("gosu", "app", "/root/.local/bin/serve", "--port", "8000"), files: wrappers},
			problem:   ParentNotSearchable, user: "uid 1000 (app, via gosu)", argv: "/root/.local/bin/serve --port 8000",
		},
		{
			startCase: startCase{name: "gosu to a name the image lacks", spec: withArgv("gosu", "svc", "sh"), files: wrappers},
			problem:   UserSwitchFails, user: "uid 0 (root)", argv: "sh", file: "/etc/passwd",
		},
		{
			startCase: startCase{name: "gosu to an unknown group", spec: withArgv("gosu", "app:staff", "sh"), files: wrappers},
			problem:   UserSwitchFails, user: "uid 0 (root)", argv: "sh", file: "/etc/group",
		},
		{
			// gosu takes a number as the uid, with or without an entry
			// (moby/sys/user GetExecUser).
			startCase: startCase{name: "gosu to a uid without an entry", spec: withArgv("gosu", "4242", "sh"), files: wrappers},
			user:      "uid 4242 (via gosu)", argv: "sh",
		},
		{
			startCase: startCase{name: "gosu to uid:gid", spec: withArgv("gosu", "4242:4242", "sh"), files: wrappers},
			user:      "uid 4242 (via gosu)", argv: "sh",
		},
		{
			startCase: startCase{name: "su-exec to a name the image lacks", spec: withArgv("/usr/bin/su-exec", "svc", "sh"), files: wrappers},
			problem:   UserSwitchFails, user: "uid 0 (root)", argv: "sh", file: "/etc/passwd",
		},
		{
			startCase: startCase{name: "su-exec to a uid without an entry", spec: withArgv("su-exec", "4242", "sh"), files: wrappers},
			user:      "uid 4242 (via su-exec)", argv: "sh",
		},
		{
			startCase: startCase{name: "setpriv --reuid to a name the image lacks", spec: withArgv("setpriv", "--reuid=svc", "--init-groups", "sh"), files: wrappers},
			problem:   UserSwitchFails, user: "uid 0 (root)", argv: "sh", file: "/etc/passwd",
		},
		{
			startCase: startCase{name: "runuser -u to a name the image lacks", spec: withArgv("runuser", "-u", "svc", "--", "sh"), files: wrappers},
			problem:   UserSwitchFails, user: "uid 0 (root)", argv: "sh", file: "/etc/passwd",
		},
		{
			startCase: startCase{name: "s6-setuidgid to a name the image lacks", spec: withArgv("s6-setuidgid", "svc", "sh"), files: wrappers},
			problem:   UserSwitchFails, user: "uid 0 (root)", argv: "sh", file: "/etc/passwd",
		},
		{
			startCase: startCase{name: "s6-setuidgid to app", spec: withArgv("s6-setuidgid", "app", "/root/.local/bin/serve"), files: wrappers},
			problem:   ParentNotSearchable, user: "uid 1000 (app, via s6-setuidgid)", argv: "/root/.local/bin/serve",
		},
		{
			startCase: startCase{name: "chroot --userspec to a name the image lacks", spec: withArgv("chroot", "--userspec=svc:svc", "/", "sh"), files: wrappers},
			problem:   UserSwitchFails, user: "uid 0 (root)", argv: "sh", file: "/etc/passwd",
		},
		{
			startCase: startCase{name: "chroot --userspec to app", spec: withArgv("chroot", "--userspec=app:app", "/", "/root/.local/bin/serve"), files: wrappers},
			problem:   ParentNotSearchable, user: "uid 1000 (app, via chroot)", argv: "/root/.local/bin/serve",
		},
		{
			startCase: startCase{name: "env before gosu", spec: withArgv("env", "MODE=prod", "gosu", "app", "sh"), files: wrappers},
			user:      "uid 1000 (app, via gosu)", argv: "sh", env: []string{"MODE=prod"},
		},
		{
			startCase: startCase{name: "gosu run as app", spec: asApp(withArgv("gosu", "app", "sh")), files: wrappers},
			problem:   UserSwitchFails, user: "uid 1000 (app)", argv: "sh",
		},
		{
			// The wrapper argv names is the one that runs, in PATH or not.
			startCase: startCase{name: "su-exec outside PATH run as app", spec: asApp(withArgv("/sbin/su-exec", "app", "sh")),
				files: append([]layerFile{elfFile("sbin/su-exec", "stub-amd64")}, wrappers...)},
			problem: UserSwitchFails, user: "uid 1000 (app)", argv: "sh",
		},
		{
			startCase: startCase{name: "setuid su-exec outside PATH run as app", spec: asApp(withArgv("/sbin/su-exec", "root", "sh")),
				files: append([]layerFile{{header: tar.Header{Name: "sbin/su-exec", Typeflag: tar.TypeReg, Mode: 0o4755}, elf: "stub-amd64"}}, wrappers...)},
			user: "uid 0 (root, via su-exec)", argv: "sh",
		},
		{
			// A volume over /etc/passwd is what gosu reads: not judged.
			startCase: startCase{name: "accounts on a volume", spec: withAccountsMounted(withArgv("gosu", "svc", "sh")), files: wrappers},
			user:      "the user gosu switches to (volume \"passwd\" is mounted at /etc/passwd)", argv: "sh",
		},
		{
			// gosu given no program runs nothing after it: it is the program.
			startCase: startCase{name: "gosu without a program", spec: withArgv("gosu", "svc"), files: wrappers},
			user:      "uid 0 (root)", argv: "gosu svc",
		},
		{
			// A wrapper the image does not have is argv[0] not found, not a
			// failed switch.
			startCase: startCase{name: "no gosu", spec: withArgv("gosu", "svc", "sh"), files: userLocalBin},
			problem:   NotInPath, argv: "gosu svc sh",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			analysis, _ := c.replay(t)
			if len(analysis.Runs) != 1 || strings.Join(analysis.Runs[0].Argv, " ") != c.argv {
				t.Fatalf("runs %q, want %q; problems %+v", runsOf(analysis), c.argv, analysis.Problems)
			}
			run := analysis.Runs[0]
			switch {
			case c.problem == 0 && len(analysis.Problems) > 0:
				t.Fatalf("problems: %+v", analysis.Problems)
			case c.problem != 0 && (len(analysis.Problems) != 1 || analysis.Problems[0].Reason != c.problem):
				t.Fatalf("problems: got %+v, want one %v", analysis.Problems, c.problem)
			case c.problem == NotInPath:
				return
			case c.problem != 0:
				p := analysis.Problems[0]
				if p.User.String() != c.user || p.SwitchFile != c.file {
					t.Errorf("problem's user %q, file %q; want %q, %q", p.User, p.SwitchFile, c.user, c.file)
				}
				if len(p.Via) != 1 || !p.Via[0].Wrapper || path.Base(p.Via[0].Script) != path.Base(c.spec.Argv[0]) {
					t.Errorf("problem's hops %+v, want the wrapper's", p.Via)
				}
			case run.User.String() != c.user:
				t.Errorf("run's user %q, want %q", run.User, c.user)
			}
			if c.problem != UserSwitchFails && len(run.Via) == 1 && !slices.Equal(run.Via[0].Env, c.env) {
				t.Errorf("run's env %q, want %q", run.Via[0].Env, c.env)
			}
		})
	}
}

func withAccountsMounted(spec Spec) Spec {
	spec.AccountsMounted = `volume "passwd" is mounted at /etc/passwd`
	return spec
}
