package launch

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/modellint/modellint/lint/image"
)

// Process is who the container's first process is and what it starts
// with: its user and account, HOME, its environment, and where the paths
// it writes land. The kubelet, containerd and runc compose it; rules read
// it from here rather than working it out again.
type Process struct {
	// User is the uid, gid and groups (runAsUser, runAsGroup,
	// supplementalGroups and fsGroup over the image's USER).
	User User
	// Read says the image's files were read; without them the account and
	// the HOME from it are unknown.
	Read bool
	// Home is HOME as the process sees it. HomeFrom says who set it:
	// "env" (the image's ENV or the manifest), "passwd" (runc, from the
	// uid's entry in the image's /etc/passwd), or "no account" (runc's
	// "/" when the uid has no entry, or the image no /etc/passwd).
	Home, HomeFrom string
	// Env is the environment in order, later entries winning: containerd's
	// PATH, the image's ENV, the literal values of envFrom, the manifest's
	// env, then HOME when runc adds it.
	Env []string
	// Defined are variables whose value is set but not known here: env
	// valueFrom, and the keys of the Secrets envFrom names.
	Defined []string
	// EnvUnknown names an envFrom source that was not read (a ConfigMap or
	// Secret outside the linted files): it may set any variable.
	EnvUnknown string
	// CRIOAccount says CRI-O, unlike containerd, adds an /etc/passwd
	// entry for the uid: it has none, and the image's /etc/passwd exists,
	// is not empty, and is not writable by the uid (setupContainerUser and
	// utils.GeneratePasswd). CRIOHome is that entry's home, which runc
	// then sets as HOME: the HOME env, else the working dir.
	CRIOAccount bool
	CRIOHome    string
	// Mounts are the container's volume mounts (SetMounts).
	Mounts []Mount
	// PasswdMount is the mount that hides the image's /etc/passwd (a
	// ConfigMap or Secret at /etc/passwd through subPath, a volume at
	// /etc): the uid's account, and the HOME runc takes from it, are then
	// not known from the image. Nil when none does.
	PasswdMount *Mount
	// ReadOnlyRoot is securityContext.readOnlyRootFilesystem.
	ReadOnlyRoot bool
	// StartUser is who the container started as when a wrapper on the way
	// to the server switched the user (User.Via names it), and HOME is
	// still the one runc set for StartUser when HomeKept.
	StartUser *User
	HomeKept  bool
}

// Mount is one volumeMount with the kind of volume behind it.
type Mount struct {
	Path, Volume string
	// Kind is the volume source's field ("emptyDir",
	// "persistentVolumeClaim", …), "" when the volume is not in the pod.
	Kind     string
	ReadOnly bool
	// Field is the mount's manifest field.
	Field string
}

// Storage says where a write to a path lands.
type Storage int

const (
	// OnMount: a writable volume.
	OnMount Storage = iota + 1
	// OnLayer: the container's writable layer, counted as the pod's
	// ephemeral storage and lost when the container is recreated.
	OnLayer
	// ReadOnly: a read-only root filesystem or a read-only mount; the
	// write fails with EROFS ("Read-only file system").
	ReadOnly
)

// rootHome is the HOME runc sets when the uid has no /etc/passwd entry
// (libcontainer/env.go, getUserHome's defaultHome).
const rootHome = "/"

// NewProcess composes the process of a container from its start (whose
// Env is the whole environment, envFrom's included) and its image (nil or
// unread: the account is unknown). The caller adds the mounts.
func NewProcess(spec Spec, img *image.Image) Process {
	p := Process{Env: append([]string(nil), spec.Env...)}
	if img != nil && img.FS() != nil {
		p.Read = true
		p.User = ResolveUser(spec, img)
	} else {
		p.User = User{From: "default"}
		if spec.RunAsUser != nil {
			p.User.UID, p.User.From = uint32(*spec.RunAsUser), "runAsUser"
		}
	}
	if p.Read && p.User.Name == "" && crioAddsAccount(img, p.User.UID) {
		p.CRIOAccount, p.CRIOHome = true, spec.WorkingDir
		if home, ok := Lookup(p.Env, "HOME"); ok && home != "" {
			p.CRIOHome = home
		}
	}
	// runc adds HOME when the env has none or an empty one.
	if home, ok := Lookup(p.Env, "HOME"); ok && home != "" {
		p.Home, p.HomeFrom = home, "env"
		return p
	}
	if !p.Read {
		return p
	}
	p.Home, p.HomeFrom = rootHome, "no account"
	if p.User.Name != "" {
		p.HomeFrom = "passwd"
		if p.User.Home != "" {
			p.Home = p.User.Home
		}
	}
	p.Env = append(p.Env, "HOME="+p.Home)
	return p
}

// crioAddsAccount says CRI-O writes an /etc/passwd entry for a uid the
// image's does not have: unless the file is missing or empty, or
// writable by its group, by others, or by the uid as its owner.
func crioAddsAccount(img *image.Image, uid uint32) bool {
	data, ok := img.ReadText("/etc/passwd")
	if !ok || len(data) == 0 {
		return false
	}
	node, err := img.FS().Stat("/etc/passwd")
	if err != nil {
		return false
	}
	if node.Mode&0o022 != 0 || node.UID == uid && node.Mode&0o200 != 0 {
		return false
	}
	return true
}

// Getenv returns the last value of a variable of the environment.
func (p *Process) Getenv(name string) (string, bool) {
	return Lookup(p.Env, name)
}

// IsSet says a variable is set to a non-empty value, or to one the
// cluster fills in.
func (p *Process) IsSet(name string) bool {
	if value, ok := p.Getenv(name); ok && value != "" {
		return true
	}
	return slices.Contains(p.Defined, name)
}

// HasAccount says the uid has an entry in the image's /etc/passwd.
func (p *Process) HasAccount() bool {
	return p.User.Name != ""
}

// AccountKnown says whether the uid has an account is known: the image
// was read, no volume hides its /etc/passwd, and the user is known.
func (p *Process) AccountKnown() bool {
	return p.Read && p.PasswdMount == nil && p.User.Unresolved == ""
}

// SwitchUser gives the process the user the wrappers on the way to the
// server switch to (gosu, su-exec, setpriv …), from the runs of its
// start: the ones it ends on, which may be a script's branches. Branches
// that run as different users leave the user unresolved; so does a volume
// over /etc/passwd, which is what the wrapper reads. HOME follows the
// wrapper: su-exec and runuser set it from the user's entry, gosu and
// setpriv keep runc's.
func (p *Process) SwitchUser(runs []Run) {
	var ends []Run
	for _, run := range runs {
		if !run.Side && !run.Fails {
			ends = append(ends, run)
		}
	}
	if len(ends) == 0 || !slices.ContainsFunc(ends, func(run Run) bool { return run.User.Via != "" }) {
		return
	}
	end := ends[0]
	for _, other := range ends[1:] {
		if !sameUser(other, end) {
			end = Run{User: User{Via: "a wrapper", Unresolved: "the script's branches run the server as different users"}, HomeSet: true}
			break
		}
	}
	start := p.User
	p.StartUser, p.User = &start, end.User
	if p.PasswdMount != nil {
		p.User = User{Via: end.User.Via, From: end.User.From, Unresolved: "it is looked up in the /etc/passwd of volume " + strconv.Quote(p.PasswdMount.Volume)}
	}
	if p.User.UID != start.UID || p.User.Unresolved != "" {
		p.CRIOAccount, p.CRIOHome = false, "" // CRI-O's entry is for the uid the container starts as
	}
	if !end.HomeSet {
		p.HomeKept = p.Home != ""
		return
	}
	p.Env = slices.DeleteFunc(p.Env, func(entry string) bool { return strings.HasPrefix(entry, "HOME=") })
	p.Defined = slices.DeleteFunc(p.Defined, func(name string) bool { return name == "HOME" })
	if end.Home == "" || p.User.Unresolved != "" {
		p.Home, p.HomeFrom = "", ""
		p.Defined = append(p.Defined, "HOME")
		return
	}
	p.Home, p.HomeFrom = end.Home, "passwd"
	if p.User.Name == "" {
		p.HomeFrom = "no account"
	}
	p.Env = append(p.Env, "HOME="+p.Home)
}

// sameUser says two runs run as the same user with the same HOME.
func sameUser(a, b Run) bool {
	return a.User.UID == b.User.UID && a.User.GID == b.User.GID && slices.Equal(a.User.Groups, b.User.Groups) &&
		a.User.Via == b.User.Via && a.User.Unresolved == b.User.Unresolved && a.HomeSet == b.HomeSet && a.Home == b.Home
}

// SetMounts gives the process its volume mounts. One over the image's
// /etc/passwd hides it from whoever looks the uid up: runc does inside
// the container, once the mounts are in place (libcontainer/env.go,
// prepareEnv, for HOME), and so does the server (getpwuid). The account,
// and the HOME runc sets from it, are then unknown; CRI-O's entry goes to
// the hidden file.
func (p *Process) SetMounts(mounts []Mount) {
	p.Mounts, p.PasswdMount = mounts, nil
	for i := range p.Mounts {
		dir := path.Clean("/" + p.Mounts[i].Path)
		if dir == "/etc/passwd" || strings.HasPrefix("/etc/passwd", strings.TrimSuffix(dir, "/")+"/") {
			p.PasswdMount = &p.Mounts[i]
			break
		}
	}
	if p.PasswdMount == nil {
		return
	}
	p.CRIOAccount, p.CRIOHome = false, ""
	if p.HomeFrom == "passwd" || p.HomeFrom == "no account" {
		if n := len(p.Env); n > 0 && p.Env[n-1] == "HOME="+p.Home {
			p.Env = p.Env[:n-1] // runc's, which NewProcess added last
		}
		p.Home, p.HomeFrom = "", ""
	}
}

// Where says where a write to an absolute path lands, and the mount it is
// on (nil on the root filesystem).
func (p *Process) Where(name string) (Storage, *Mount) {
	name = path.Clean("/" + name)
	var found *Mount
	for i := range p.Mounts {
		mount := &p.Mounts[i]
		dir := path.Clean("/" + mount.Path)
		if name != dir && !strings.HasPrefix(name, strings.TrimSuffix(dir, "/")+"/") {
			continue
		}
		if found == nil || len(dir) > len(path.Clean("/"+found.Path)) {
			found = mount
		}
	}
	switch {
	case found != nil && found.ReadOnly:
		return ReadOnly, found
	case found != nil:
		return OnMount, found
	case p.ReadOnlyRoot:
		return ReadOnly, nil
	}
	return OnLayer, nil
}

// ExpandHome replaces a leading ~ with HOME, as os.path.expanduser does.
func (p *Process) ExpandHome(name string) string {
	if name == "~" {
		return p.Home
	}
	if rest, ok := strings.CutPrefix(name, "~/"); ok {
		return path.Join(p.Home, rest)
	}
	return name
}
