package launch

import (
	"archive/tar"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestNewProcess(t *testing.T) {
	_, img := startCase{name: "process", spec: withArgv("/bin/sh")}.replay(t)
	uid := func(id int64) *int64 { return &id }
	cases := []struct {
		name             string
		spec             Spec
		home, from, user string
		account          bool
	}{
		{name: "root", spec: withArgv("/bin/sh"), home: "/root", from: "passwd", user: "uid 0 (root)", account: true},
		{name: "app", spec: asApp(withArgv("/bin/sh")), home: "/home/app", from: "passwd", user: "uid 1000 (app)", account: true},
		// runc sets HOME=/ for a uid without an entry (libcontainer/env.go).
		{name: "no-account", spec: Spec{Env: []string{"PATH=/bin"}, RunAsUser: uid(1001)}, home: "/", from: "no account", user: "uid 1001"},
		{name: "env-home", spec: Spec{Env: []string{"PATH=/bin", "HOME=/data"}, RunAsUser: uid(1001)}, home: "/data", from: "env", user: "uid 1001"},
		{name: "empty-env-home", spec: Spec{Env: []string{"HOME="}, RunAsUser: uid(1000)}, home: "/home/app", from: "passwd", user: "uid 1000 (app)", account: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := NewProcess(tc.spec, img)
			if p.Home != tc.home || p.HomeFrom != tc.from || p.User.String() != tc.user || p.HasAccount() != tc.account {
				t.Errorf("got HOME %q from %q, %s, account %v; want %q from %q, %s, account %v",
					p.Home, p.HomeFrom, p.User, p.HasAccount(), tc.home, tc.from, tc.user, tc.account)
			}
			if home, _ := p.Getenv("HOME"); home != tc.home {
				t.Errorf("env HOME = %q, want %q", home, tc.home)
			}
		})
	}
	unread := NewProcess(Spec{RunAsUser: uid(1001)}, nil)
	if unread.Read || unread.Home != "" || unread.User.UID != 1001 {
		t.Errorf("unread image: %+v", unread)
	}
}

func TestProcessWhere(t *testing.T) {
	p := Process{Mounts: []Mount{{Path: "/models", Volume: "models"}, {Path: "/models/ro", ReadOnly: true}, {Path: "/cache/"}}}
	cases := []struct {
		path     string
		readOnly bool
		want     Storage
		volume   string
	}{
		{path: "/models/x", want: OnMount, volume: "models"},
		{path: "/models/ro/x", want: ReadOnly},
		{path: "/modelsx", want: OnLayer},
		{path: "/cache", want: OnMount},
		{path: "/root/.cache", want: OnLayer},
		{path: "/root/.cache", readOnly: true, want: ReadOnly},
		{path: "/models/x", readOnly: true, want: OnMount, volume: "models"},
	}
	for _, tc := range cases {
		p.ReadOnlyRoot = tc.readOnly
		got, mount := p.Where(tc.path)
		if got != tc.want || tc.volume != "" && (mount == nil || mount.Volume != tc.volume) {
			t.Errorf("Where(%q, readOnlyRoot %v) = %v %+v, want %v on %q", tc.path, tc.readOnly, got, mount, tc.want, tc.volume)
		}
	}
}

func TestHubCache(t *testing.T) {
	cases := []struct {
		env, defined []string
		home, want   string
		from         string
		ok           bool
	}{
		{home: "/root", want: "/root/.cache/huggingface/hub", from: "HOME", ok: true},
		{home: "/", want: "/.cache/huggingface/hub", from: "HOME", ok: true},
		{home: "", want: ".cache/huggingface/hub", from: "HOME"},
		{env: []string{"XDG_CACHE_HOME=/cache"}, want: "/cache/huggingface/hub", from: "XDG_CACHE_HOME", ok: true},
		{env: []string{"HF_HOME=/models", "XDG_CACHE_HOME=/cache"}, want: "/models/hub", from: "HF_HOME", ok: true},
		{env: []string{"HF_HOME=~/hf"}, home: "/home/app", want: "/home/app/hf/hub", from: "HF_HOME", ok: true},
		{env: []string{"HF_HOME=x"}, home: "/home/app", want: "x/hub", from: "HF_HOME"}, // relative: depends on the working dir
		{defined: []string{"HF_HOME"}, home: "/home/app", want: "hub", from: "HF_HOME"}, // set from a Secret: not known here
		{env: []string{"HF_HOME=/models", "HF_HUB_CACHE=/hub"}, want: "/hub", from: "HF_HUB_CACHE", ok: true},
		{env: []string{"HUGGINGFACE_HUB_CACHE=/old", "HF_HOME=/models"}, want: "/old", from: "HUGGINGFACE_HUB_CACHE", ok: true},
	}
	for _, tc := range cases {
		p := Process{Env: tc.env, Defined: tc.defined, Home: tc.home}
		dir, from, ok := p.HubCache()
		if dir != tc.want || from != tc.from || ok != tc.ok {
			t.Errorf("env %v HOME %q: HubCache() = %q, %q, %v; want %q, %q, %v", tc.env, tc.home, dir, from, ok, tc.want, tc.from, tc.ok)
		}
	}
	p := Process{Home: "/", Env: []string{"XDG_CACHE_HOME=/x"}}
	if dir, _, _ := p.VLLMCacheRoot(); dir != "/x/vllm" {
		t.Errorf("VLLMCacheRoot() = %q", dir)
	}
}

func TestCRIOAccount(t *testing.T) {
	uid := int64(1001)
	_, img := startCase{name: "crio", spec: withArgv("/bin/sh")}.replay(t)
	p := NewProcess(Spec{Env: []string{"PATH=/bin"}, WorkingDir: "/app", RunAsUser: &uid}, img)
	if !p.CRIOAccount || p.CRIOHome != "/app" || p.Home != "/" {
		t.Errorf("0644 /etc/passwd: CRIOAccount %v CRIOHome %q Home %q; want true, /app, /", p.CRIOAccount, p.CRIOHome, p.Home)
	}
	if p := NewProcess(Spec{Env: []string{"HOME=/data"}, WorkingDir: "/app", RunAsUser: &uid}, img); !p.CRIOAccount || p.CRIOHome != "/data" {
		t.Errorf("HOME=/data: CRIOAccount %v CRIOHome %q; want true, /data", p.CRIOAccount, p.CRIOHome)
	}
	_, owned := startCase{name: "crio-owned", spec: withArgv("/bin/sh"), files: []layerFile{
		{header: tar.Header{Name: "etc/passwd", Typeflag: tar.TypeReg, Mode: 0o644, Uid: 1001}, content: "root:x:0:0::/root:/bin/sh\n"},
	}}.replay(t)
	if p := NewProcess(Spec{RunAsUser: &uid}, owned); p.CRIOAccount {
		t.Errorf("/etc/passwd owned and writable by the uid: CRI-O adds no entry")
	}
	_, readOnly := startCase{name: "crio-owned-read-only", spec: withArgv("/bin/sh"), files: []layerFile{
		{header: tar.Header{Name: "etc/passwd", Typeflag: tar.TypeReg, Mode: 0o444, Uid: 1001}, content: "root:x:0:0::/root:/bin/sh\n"},
	}}.replay(t)
	if p := NewProcess(Spec{RunAsUser: &uid}, readOnly); !p.CRIOAccount {
		t.Errorf("/etc/passwd owned by the uid, read-only: CRI-O adds an entry")
	}
	_, writable := startCase{name: "crio-writable", spec: withArgv("/bin/sh"), files: []layerFile{
		regular("etc/passwd", 0o664, "root:x:0:0::/root:/bin/sh\n"),
	}}.replay(t)
	if p := NewProcess(Spec{RunAsUser: &uid}, writable); p.CRIOAccount {
		t.Errorf("group-writable /etc/passwd: CRI-O adds no entry")
	}
}

// TestSetMountsPasswd checks a volume over the image's /etc/passwd makes
// the account, and the HOME runc takes from it, unknown; HOME from the
// env stays.
func TestSetMountsPasswd(t *testing.T) {
	_, img := startCase{name: "passwd-mount", spec: withArgv("/bin/sh")}.replay(t)
	uid := int64(1001)
	cases := []struct {
		name   string
		env    []string
		mounts []Mount
		hidden string // the mount that hides /etc/passwd
		home   string
	}{
		{name: "subPath", mounts: []Mount{{Path: "/models"}, {Path: "/etc/passwd", Volume: "passwd", Kind: "configMap"}}, hidden: "passwd"},
		{name: "etc", mounts: []Mount{{Path: "/etc/", Volume: "etc", Kind: "secret"}}, hidden: "etc"},
		{name: "beside", mounts: []Mount{{Path: "/etc/passwd.d", Volume: "other"}, {Path: "/etcetera"}}, home: "/"},
		{name: "home from env", env: []string{"HOME=/data"}, mounts: []Mount{{Path: "/etc/passwd", Volume: "passwd"}}, hidden: "passwd", home: "/data"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := NewProcess(Spec{Env: tc.env, RunAsUser: &uid}, img)
			p.SetMounts(tc.mounts)
			hidden := ""
			if p.PasswdMount != nil {
				hidden = p.PasswdMount.Volume
			}
			if hidden != tc.hidden || p.AccountKnown() != (tc.hidden == "") || p.Home != tc.home {
				t.Errorf("hidden by %q, account known %v, HOME %q; want %q, %v, %q", hidden, p.AccountKnown(), p.Home,
					tc.hidden, tc.hidden == "", tc.home)
			}
			if home, ok := p.Getenv("HOME"); home != tc.home || ok != (tc.home != "") {
				t.Errorf("env HOME = %q (%v), want %q", home, ok, tc.home)
			}
			if tc.hidden != "" && p.CRIOAccount {
				t.Errorf("CRI-O's entry goes to the hidden file, not the one read")
			}
		})
	}
}

// TestStrictGroups: with supplementalGroupsPolicy: Strict the uid's
// memberships in the image's /etc/group are not among its groups; the
// pod's supplementalGroups and fsGroup still are.
func TestStrictGroups(t *testing.T) {
	_, img := startCase{name: "groups", spec: withArgv("/bin/sh"), files: []layerFile{
		regular("etc/group", 0o644, "root:x:0:\napp:x:1000:\nteam:x:2000:app\n"),
	}}.replay(t)
	strict := corev1.SupplementalGroupsPolicyStrict
	fsGroup := int64(3000)
	for _, tc := range []struct {
		name   string
		policy *corev1.SupplementalGroupsPolicy
		want   []uint32
	}{
		{name: "merge", want: []uint32{1000, 2000, 3000}},
		{name: "strict", policy: &strict, want: []uint32{1000, 3000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			uid := int64(1000)
			pod := &corev1.PodSpec{SecurityContext: &corev1.PodSecurityContext{RunAsUser: &uid, FSGroup: &fsGroup, SupplementalGroupsPolicy: tc.policy}}
			user := ResolveUser(ForContainer(&corev1.Container{Command: []string{"/bin/sh"}}, pod, img), img)
			if !slices.Equal(user.Groups, tc.want) {
				t.Errorf("groups %v, want %v", user.Groups, tc.want)
			}
		})
	}
}

// TestProcessSwitchUser: the process takes the user its runs end on after
// a wrapper switched it, and the HOME the wrapper leaves; branches that
// disagree, or a volume over /etc/passwd, leave it unknown.
func TestProcessSwitchUser(t *testing.T) {
	_, img := startCase{name: "switch", spec: withArgv("/bin/sh")}.replay(t)
	app := User{UID: 1000, GID: 1000, Groups: []uint32{1000}, Name: "app", Home: "/home/app", Via: "su-exec", From: "su-exec"}
	setprivApp := app
	setprivApp.Via, setprivApp.From = "setpriv", "setpriv"
	cases := []struct {
		name     string
		runs     []Run
		mounts   []Mount
		user     string
		home     string
		homeKept bool
		known    bool // the account is known
	}{
		{name: "no switch", runs: []Run{{User: User{Name: "root", Home: "/root"}}}, user: "uid 0 (root)", home: "/root", known: true},
		{name: "su-exec sets HOME", runs: []Run{{User: app, Home: "/home/app", HomeSet: true}}, user: "uid 1000 (app, via su-exec)", home: "/home/app", known: true},
		{name: "setpriv keeps HOME", runs: []Run{{User: setprivApp}}, user: "uid 1000 (app, via setpriv)", home: "/root", homeKept: true, known: true},
		{name: "a side run and a failing one do not count", runs: []Run{{User: setprivApp}, {User: app, Side: true}, {User: User{UID: 7}, Fails: true}},
			user: "uid 1000 (app, via setpriv)", home: "/root", homeKept: true, known: true},
		{name: "branches as different users", runs: []Run{{User: setprivApp}, {User: User{Name: "root", Home: "/root"}}},
			user: "the user a wrapper switches to (the script's branches run the server as different users)"},
		{name: "the wrapper reads a mounted /etc/passwd", runs: []Run{{User: app, Home: "/home/app", HomeSet: true}},
			mounts: []Mount{{Path: "/etc/passwd", Volume: "passwd"}},
			user:   "the user su-exec switches to (it is looked up in the /etc/passwd of volume \"passwd\")"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := NewProcess(withArgv("/bin/sh"), img)
			p.SetMounts(tc.mounts)
			p.SwitchUser(tc.runs)
			if p.User.String() != tc.user || p.Home != tc.home || p.HomeKept != tc.homeKept || p.AccountKnown() != tc.known {
				t.Errorf("user %q HOME %q kept %v account known %v; want %q, %q, %v, %v", p.User, p.Home, p.HomeKept, p.AccountKnown(),
					tc.user, tc.home, tc.homeKept, tc.known)
			}
			if home, ok := p.Getenv("HOME"); home != tc.home || ok != (tc.home != "") {
				t.Errorf("env HOME = %q (%v), want %q", home, ok, tc.home)
			}
			if tc.home == "" && !p.IsSet("HOME") {
				t.Errorf("HOME unknown but not set: a wrapper sets it at run time")
			}
		})
	}
}
