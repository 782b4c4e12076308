package launch

import (
	"bufio"
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/image/launch/shell"
)

// Account is one /etc/passwd line.
type Account struct {
	Name     string
	UID, GID uint32
	// Home is the sixth field, the home directory ("" when the line has
	// no such field).
	Home string
}

// ParsePasswd reads /etc/passwd; malformed lines are skipped, as libc does.
func ParsePasswd(data []byte) []Account {
	var accounts []Account
	scanner := bufio.NewScanner(bytes.NewReader(data))
	scanner.Buffer(make([]byte, 4096), 1<<20)
	for scanner.Scan() {
		fields := strings.Split(scanner.Text(), ":")
		if len(fields) < 4 || fields[0] == "" || strings.HasPrefix(fields[0], "#") {
			continue
		}
		uid, err1 := strconv.ParseUint(fields[2], 10, 32)
		gid, err2 := strconv.ParseUint(fields[3], 10, 32)
		if err1 != nil || err2 != nil {
			continue
		}
		account := Account{Name: fields[0], UID: uint32(uid), GID: uint32(gid)}
		if len(fields) > 5 {
			account.Home = fields[5]
		}
		accounts = append(accounts, account)
	}
	return accounts
}

// Group is one /etc/group line.
type Group struct {
	Name    string
	GID     uint32
	Members []string
}

// ParseGroup reads /etc/group.
func ParseGroup(data []byte) []Group {
	var groups []Group
	scanner := bufio.NewScanner(bytes.NewReader(data))
	scanner.Buffer(make([]byte, 4096), 1<<20)
	for scanner.Scan() {
		fields := strings.Split(scanner.Text(), ":")
		if len(fields) < 3 || fields[0] == "" || strings.HasPrefix(fields[0], "#") {
			continue
		}
		gid, err := strconv.ParseUint(fields[2], 10, 32)
		if err != nil {
			continue
		}
		group := Group{Name: fields[0], GID: uint32(gid)}
		if len(fields) > 3 && fields[3] != "" {
			group.Members = strings.Split(fields[3], ",")
		}
		groups = append(groups, group)
	}
	return groups
}

// User is who the container process runs as.
type User struct {
	UID, GID uint32
	Groups   []uint32
	// Name is the account name, when known: empty when the uid has no
	// entry in the image's /etc/passwd.
	Name string
	// Home is the account's home directory from /etc/passwd.
	Home string
	// From says where the uid came from: "runAsUser", "USER", or "default".
	From string
	// Written is the image USER as written.
	Written string
	// Unknown says which name could not be resolved ("user app is not in
	// /etc/passwd"); the runtime then refuses to start the container.
	Unknown string
	// NoPasswd is set when the image has no /etc/passwd.
	NoPasswd bool
	// Via is the wrapper that switched to this user on the way to the
	// program (gosu, su-exec, setpriv, runuser, chroot, s6-setuidgid,
	// s6-applyuidgid), "" for the container's own user.
	Via string
	// Unresolved says why the user a wrapper switched to is known only at
	// run time (gosu "$APP_USER"): the permission checks then pass what
	// any user might be let through, as nothing certain can be said.
	Unresolved string
}

// ResolveUser determines the process user as runc does (libcontainer/user:
// a name is looked up in the image's /etc/passwd and /etc/group, a number
// is used as is; supplementary groups are the user's /etc/group entries,
// unless the pod's supplementalGroupsPolicy is Strict).
func ResolveUser(spec Spec, img *image.Image) User {
	written := ""
	if img.Config != nil {
		written = img.Config.Config.User
	}
	passwdData, hasPasswd := img.ReadText("/etc/passwd")
	groupData, _ := img.ReadText("/etc/group")
	accounts, groups := ParsePasswd(passwdData), ParseGroup(groupData)
	user := User{Written: written, From: "default", NoPasswd: !hasPasswd}
	userPart, groupPart, hasGroup := strings.Cut(written, ":")
	var account *Account
	switch {
	case spec.RunAsUser != nil:
		user.UID, user.From = uint32(*spec.RunAsUser), "runAsUser"
		account = accountByUID(accounts, user.UID)
	case userPart != "":
		user.From = "USER"
		if uid, err := strconv.ParseUint(userPart, 10, 32); err == nil {
			user.UID = uint32(uid)
			account = accountByUID(accounts, user.UID)
		} else {
			account = accountByName(accounts, userPart)
			if account == nil {
				user.Unknown = "user " + strconv.Quote(userPart) + " is not in the image's /etc/passwd"
				if !hasPasswd {
					user.Unknown = "user " + strconv.Quote(userPart) + " cannot be looked up: the image has no /etc/passwd"
				}
			} else {
				user.UID = account.UID
			}
		}
	default:
		account = accountByUID(accounts, 0)
	}
	if account != nil {
		user.Name, user.GID, user.Home = account.Name, account.GID, account.Home
	}
	switch {
	case spec.RunAsGroup != nil:
		user.GID = uint32(*spec.RunAsGroup)
	case hasGroup && groupPart != "":
		if gid, err := strconv.ParseUint(groupPart, 10, 32); err == nil {
			user.GID = uint32(gid)
		} else if group := groupByName(groups, groupPart); group != nil {
			user.GID = group.GID
		} else if user.Unknown == "" {
			user.Unknown = "group " + strconv.Quote(groupPart) + " is not in the image's /etc/group"
		}
	}
	user.Groups = append(user.Groups, user.GID)
	// supplementalGroupsPolicy: Strict keeps the image's /etc/group out:
	// containerd then skips WithAdditionalGIDs (internal/cri/server
	// container_create_linux.go), CRI-O the /etc/group lookup
	// (setupContainerUser).
	if user.Name != "" && !spec.StrictGroups {
		for _, group := range groups {
			for _, member := range group.Members {
				if member == user.Name {
					user.Groups = append(user.Groups, group.GID)
				}
			}
		}
	}
	for _, gid := range spec.SupplementalGroups {
		user.Groups = append(user.Groups, uint32(gid))
	}
	return user
}

func accountByUID(accounts []Account, uid uint32) *Account {
	for i := range accounts {
		if accounts[i].UID == uid {
			return &accounts[i]
		}
	}
	return nil
}

func accountByName(accounts []Account, name string) *Account {
	for i := range accounts {
		if accounts[i].Name == name {
			return &accounts[i]
		}
	}
	return nil
}

func groupByName(groups []Group, name string) *Group {
	for i := range groups {
		if groups[i].Name == name {
			return &groups[i]
		}
	}
	return nil
}

// String names the user for messages: "uid 1000 (app)", "uid 999 (app,
// via gosu)".
func (u User) String() string {
	if u.Unresolved != "" {
		return "the user " + u.Via + " switches to (" + u.Unresolved + ")"
	}
	s := "uid " + strconv.FormatUint(uint64(u.UID), 10)
	var about []string
	if u.Name != "" {
		about = append(about, u.Name)
	}
	if u.Via != "" {
		about = append(about, "via "+u.Via)
	}
	if len(about) > 0 {
		s += " (" + strings.Join(about, ", ") + ")"
	}
	return s
}

// CanExecute applies the kernel's permission check for execve: root needs
// any execute bit; others get the owner's, the group's or everyone's bits,
// whichever class matches first.
func (u User) CanExecute(mode, uid, gid uint32) bool {
	return u.permits(mode, uid, gid, 1)
}

// CanSearch is the same check for entering a directory.
func (u User) CanSearch(mode, uid, gid uint32) bool {
	if u.UID == 0 || u.Unresolved != "" {
		return true // CAP_DAC_READ_SEARCH
	}
	return u.permits(mode, uid, gid, 1)
}

// CanRead is the check for opening a file, or listing a directory, for
// reading: root reads anything (CAP_DAC_OVERRIDE), others need the read
// bit of the class that matches first.
func (u User) CanRead(mode, uid, gid uint32) bool {
	if u.UID == 0 || u.Unresolved != "" {
		return true
	}
	return u.permits(mode, uid, gid, 4)
}

func (u User) permits(mode, uid, gid, bit uint32) bool {
	if u.UID == 0 || u.Unresolved != "" {
		// An unknown user may be root, who needs any execute bit.
		return mode&0o111 != 0
	}
	switch {
	case u.UID == uid:
		return mode&(bit<<6) != 0
	case u.inGroup(gid):
		return mode&(bit<<3) != 0
	}
	return mode&bit != 0
}

func (u User) inGroup(gid uint32) bool {
	for _, g := range u.Groups {
		if g == gid {
			return true
		}
	}
	return false
}

// The files a wrapper looks users and groups up in.
const (
	passwdFile = "/etc/passwd"
	groupFile  = "/etc/group"
)

// Switched is who a program runs as once a wrapper changed the user.
type Switched struct {
	User User
	// SetsHome says the wrapper sets HOME (gosu, su-exec, runuser,
	// setpriv --reset-env), to Home: the user's home in /etc/passwd, "/"
	// when gosu or su-exec finds no entry, "" when it is not known.
	SetsHome bool
	Home     string
	// Fails says why the wrapper exits before it runs the program, in its
	// own words; "" when it runs it. Denied says that is because it is
	// not run as root.
	Fails  string
	Denied bool
	// Missing is the image's file the wrapper did not find the user or a
	// group in (/etc/passwd, /etc/group), when that is why it fails.
	Missing string
}

// SwitchUser applies a wrapper's change of user to from, the user it
// runs as, as the wrapper does it with the image's /etc/passwd and
// /etc/group:
//
//   - gosu USER[:GROUP] resolves the spec as runc does (moby/sys/user
//     GetExecUser): a number is a uid, a name must have an entry;
//     without a group, a named user gets its entry's gid and /etc/group
//     memberships, a uid without an entry keeps the gid. It unsets HOME
//     before the switch, so the switch always sets it: the entry's home,
//     else "/" (tianon/gosu main.go, "clear HOME so that SetupUser will
//     set it"; setup-user.go).
//   - su-exec USER[:GROUP] takes a number as the uid, a name from
//     getpwnam (it exits without one), then the uid's entry for the gid,
//     the memberships (getgrouplist, unless a group is given) and HOME,
//     which it always sets: the entry's home, else "/" (ncopa/su-exec
//     su-exec.c).
//   - setpriv --reuid/--euid, --regid/--egid take a name or a number;
//     the gid and groups stay the process's unless given: --groups,
//     --clear-groups, --init-groups (the uid's memberships). HOME stays,
//     unless --reset-env (util-linux sys-utils/setpriv.c).
//   - runuser -u USER needs an entry by name; it takes its gid and
//     memberships (initgroups) unless -g/-G name others, and sets HOME
//     from it unless -m/-p (util-linux login-utils/su-common.c).
//   - chroot --userspec=USER[:GROUP] / takes a name, else a number; a
//     uid without an entry needs GROUP; the gid and the memberships
//     come from the uid's entry unless GROUP or --groups are given.
//     HOME stays (coreutils src/chroot.c).
//   - s6-setuidgid ACCOUNT looks a name up (it exits 1 without an
//     entry) and takes its gid and memberships; uid:gid is used as is
//     (https://skarnet.org/software/s6/s6-setuidgid.html).
//   - s6-applyuidgid -u UID -g GID -G GIDLIST sets what it is given
//     (https://skarnet.org/software/s6/s6-applyuidgid.html).
//   - supervisord's user= takes a name or a uid, either with an entry,
//     its gid and memberships; HOME stays (supervisor/options.py,
//     drop_privileges; "does not change environment variables like USER
//     or HOME" in its configuration docs).
//
// Every one of them needs root (CAP_SETUID, CAP_SETGID): run as another
// user, setgroups fails with "Operation not permitted" (setpriv only
// when it changes the groups or the ids). A user known only at run time
// stays unresolved, and so does every switch after it.
func SwitchUser(from User, sw shell.Switch, img *image.Image) Switched {
	to := Switched{User: User{Via: sw.Wrapper, From: sw.Wrapper, NoPasswd: from.NoPasswd}}
	sets := sw.Wrapper == "gosu" || sw.Wrapper == "su-exec" || sw.Wrapper == "runuser" && !sw.KeepEnv || sw.Wrapper == "setpriv" && sw.ResetEnv
	if from.Unresolved != "" || sw.Unknown != "" {
		to.User.Unresolved = sw.Unknown
		if to.User.Unresolved == "" {
			to.User.Unresolved, to.User.Via = from.Unresolved, from.Via
		}
		to.SetsHome = sets
		return to
	}
	var accounts []Account
	var groups []Group
	if img != nil {
		passwdData, _ := img.ReadText("/etc/passwd")
		groupData, _ := img.ReadText("/etc/group")
		accounts, groups = ParsePasswd(passwdData), ParseGroup(groupData)
	}
	if fails := switchDenied(from, sw); fails != "" {
		to.Fails, to.Denied = fails, true
		return to
	}
	user := &to.User
	user.UID, user.GID = from.UID, from.GID
	var account *Account // the entry the wrapper takes the gid, groups and HOME from
	named := false       // the user was found by name, so its memberships apply
	notFound := func(file, format string, args ...any) Switched {
		to.Fails, to.Missing = fmt.Sprintf(format, args...), file
		return to
	}
	groupID := func(spec string) (uint32, bool) {
		if gid, err := strconv.ParseUint(spec, 10, 32); err == nil {
			return uint32(gid), true
		}
		if group := groupByName(groups, spec); group != nil {
			return group.GID, true
		}
		return 0, false
	}
	// setpriv (get_user) and chroot (gnulib's parse_user_spec) read a
	// user as a name first, then as a number; the account is nil for one.
	userID := func(spec string) (uint32, *Account, bool) {
		if account := accountByName(accounts, spec); account != nil {
			return account.UID, account, true
		}
		uid, err := strconv.ParseUint(spec, 10, 32)
		return uint32(uid), nil, err == nil
	}
	keepGroups := false
	switch sw.Wrapper {
	case "gosu":
		switch uid, err := strconv.ParseUint(sw.User, 10, 32); {
		case sw.User == "":
			account = accountByUID(accounts, user.UID)
		case err == nil:
			user.UID = uint32(uid)
			account = accountByUID(accounts, user.UID)
		default:
			if account = accountByName(accounts, sw.User); account == nil {
				return notFound(passwdFile, "gosu fails with \"error: failed switching to %q: unable to find user %s: no matching entries in passwd file\"",
					switchSpec(sw), sw.User)
			}
			named = true
		}
		to.Home = rootHome
		if account != nil {
			user.UID, user.GID = account.UID, account.GID
			to.Home = account.Home
		}
		if sw.Group != "" {
			gid, ok := groupID(sw.Group)
			if !ok {
				return notFound(groupFile, "gosu fails with \"error: failed switching to %q: unable to find group %s: no matching entries in group file\"",
					switchSpec(sw), sw.Group)
			}
			user.GID, named = gid, false
		}
	case "su-exec":
		if uid, err := strconv.ParseUint(sw.User, 10, 32); err == nil {
			user.UID = uint32(uid)
			account = accountByUID(accounts, user.UID)
		} else if sw.User != "" {
			if account = accountByName(accounts, sw.User); account == nil {
				return notFound(passwdFile, "su-exec fails with \"su-exec: getpwnam(%s)\": user %s is not in the image's /etc/passwd", sw.User, sw.User)
			}
		} else {
			account = accountByUID(accounts, user.UID)
		}
		if account != nil {
			user.UID, user.GID, named = account.UID, account.GID, true
		}
		to.Home = rootHome
		if account != nil {
			to.Home = account.Home
		}
		if sw.Group != "" {
			gid, ok := groupID(sw.Group)
			if !ok {
				return notFound(groupFile, "su-exec fails with \"su-exec: getgrnam(%s)\": group %s is not in the image's /etc/group", sw.Group, sw.Group)
			}
			user.GID, named = gid, false
		}
	case "setpriv":
		keepGroups = !sw.SetGroups && !sw.InitGroups
		if sw.User != "" {
			uid, found, ok := userID(sw.User)
			if !ok {
				return notFound(passwdFile, "setpriv fails with \"setpriv: failed to parse uid: '%s'\": user %s is not in the image's /etc/passwd", sw.User, sw.User)
			}
			user.UID, account = uid, found
		}
		if sw.Group != "" {
			if group := groupByName(groups, sw.Group); group != nil {
				user.GID = group.GID
			} else if gid, err := strconv.ParseUint(sw.Group, 10, 32); err == nil {
				user.GID = uint32(gid)
			} else {
				return notFound(groupFile, "setpriv fails with \"setpriv: failed to parse gid: '%s'\": group %s is not in the image's /etc/group", sw.Group, sw.Group)
			}
		}
		if sw.InitGroups {
			if account = accountByUID(accounts, user.UID); account == nil {
				return notFound(passwdFile, "setpriv --init-groups fails with \"setpriv: uid %d not found, --init-groups requires an user that can be "+
					"found on the system\": the image's /etc/passwd has no entry for it", user.UID)
			}
			named = true
		}
	case "runuser":
		if account = accountByName(accounts, sw.User); account == nil {
			return notFound(passwdFile, "runuser fails with \"runuser: user %s does not exist\": it looks the name up in the image's /etc/passwd", sw.User)
		}
		user.UID, user.GID, named = account.UID, account.GID, !sw.SetGroups
		if sw.Group != "" {
			gid, ok := groupID(sw.Group)
			if !ok {
				return notFound(groupFile, "runuser fails with \"runuser: group %s does not exist\"", sw.Group)
			}
			user.GID = gid
		}
		to.Home = account.Home
	case "chroot":
		// --userspec takes a name, else a number (gnulib parse_user_spec);
		// a uid needs its entry for the gid when no group is given, and
		// its name for the memberships unless --groups lists them
		// (coreutils chroot.c). A group alone leaves the groups be.
		keepGroups = sw.User == "" && !sw.SetGroups
		if sw.User != "" {
			uid, found, ok := userID(sw.User)
			if !ok {
				return notFound(passwdFile, "chroot fails with \"chroot: invalid user\": user %s is not in the image's /etc/passwd", sw.User)
			}
			user.UID, account = uid, found
		}
		if sw.Group != "" {
			gid, ok := groupID(sw.Group)
			if !ok {
				return notFound(groupFile, "chroot fails with \"chroot: invalid group\": group %s is not in the image's /etc/group", sw.Group)
			}
			user.GID = gid
		}
		if sw.User != "" && (!sw.SetGroups || sw.Group == "") {
			switch account = accountByUID(accounts, user.UID); {
			case account != nil:
				if sw.Group == "" {
					user.GID = account.GID
				}
				named = !sw.SetGroups
			case sw.Group == "":
				return notFound(passwdFile, "chroot fails with \"chroot: no group specified for unknown uid: %d\": the image's /etc/passwd has no entry for it", user.UID)
			}
		}
	case "s6-setuidgid":
		if uidText, gidText, ok := strings.Cut(sw.User, ":"); ok {
			uid, err1 := strconv.ParseUint(uidText, 10, 32)
			gid, err2 := strconv.ParseUint(gidText, 10, 32)
			if err1 != nil || err2 != nil {
				return notFound("", "s6-setuidgid fails: %q is neither a user name nor uid:gid", sw.User)
			}
			user.UID, user.GID = uint32(uid), uint32(gid)
		} else {
			if account = accountByName(accounts, sw.User); account == nil {
				return notFound(passwdFile, "s6-setuidgid exits 1 (\"unknown user\"): user %s is not in the image's /etc/passwd", sw.User)
			}
			user.UID, user.GID, named = account.UID, account.GID, true
		}
	case "supervisord":
		// A program's user= (supervisor/options.py, drop_privileges; the
		// config's name_to_uid): a number needs an entry too, the groups
		// are the entry's gid and memberships, HOME stays.
		if uid, err := strconv.ParseUint(sw.User, 10, 32); err == nil {
			account = accountByUID(accounts, uint32(uid))
		} else {
			account = accountByName(accounts, sw.User)
		}
		if account == nil {
			return notFound(passwdFile, "supervisord exits with \"Error: Invalid user name %s\" in the program's section: it is not in the image's /etc/passwd", sw.User)
		}
		user.UID, user.GID, named = account.UID, account.GID, true
	case "s6-applyuidgid":
		keepGroups = !sw.SetGroups
		if sw.User != "" {
			uid, err := strconv.ParseUint(sw.User, 10, 32)
			if err != nil {
				return notFound("", "s6-applyuidgid fails: -u %s is not a number", sw.User)
			}
			user.UID = uint32(uid)
		}
		if sw.Group != "" {
			gid, err := strconv.ParseUint(sw.Group, 10, 32)
			if err != nil {
				return notFound("", "s6-applyuidgid fails: -g %s is not a number", sw.Group)
			}
			user.GID = uint32(gid)
		}
	}
	user.Groups = []uint32{user.GID}
	switch {
	case keepGroups:
		user.Groups = append(user.Groups, from.Groups...)
	case sw.SetGroups:
		for _, spec := range sw.Groups {
			gid, ok := groupID(spec)
			if !ok {
				return notFound(groupFile, "%s fails: group %s is not in the image's /etc/group", sw.Wrapper, spec)
			}
			user.Groups = append(user.Groups, gid)
		}
	case named && account != nil:
		for _, group := range groups {
			if slices.Contains(group.Members, account.Name) {
				user.Groups = append(user.Groups, group.GID)
			}
		}
	}
	// The account the program then has is its uid's (getpwuid), which is
	// the entry a name was found by unless two share the uid.
	if account == nil || account.UID != user.UID {
		account = accountByUID(accounts, user.UID)
	}
	if account != nil {
		user.Name, user.Home = account.Name, account.Home
	}
	if sw.Wrapper == "setpriv" && sw.ResetEnv && account != nil {
		to.Home = account.Home
	}
	to.SetsHome = sets
	return to
}

// switchSpec is gosu's user-spec as written.
func switchSpec(sw shell.Switch) string {
	if sw.Group != "" {
		return sw.User + ":" + sw.Group
	}
	return sw.User
}

// switchDenied says why a wrapper run by a user other than root fails:
// it cannot set the groups or the ids (EPERM); setpriv that changes
// neither runs. "" when it may switch.
func switchDenied(from User, sw shell.Switch) string {
	if from.UID == 0 {
		return ""
	}
	switch sw.Wrapper {
	case "supervisord":
		if sw.User != strconv.FormatUint(uint64(from.UID), 10) && sw.User != from.Name {
			return "supervisord cannot start the program: \"Can't drop privilege as nonroot user\""
		}
	case "gosu":
		return fmt.Sprintf("gosu fails with \"error: failed switching to %q: operation not permitted\"", switchSpec(sw))
	case "su-exec":
		return "su-exec fails with \"su-exec: setgroups: Operation not permitted\""
	case "runuser":
		return "runuser fails: it may not be used by users other than root"
	case "chroot":
		return "chroot fails with \"chroot: failed to set supplemental groups: Operation not permitted\""
	case "s6-setuidgid", "s6-applyuidgid":
		return sw.Wrapper + " fails with \"Operation not permitted\": it can only be run as root"
	case "setpriv":
		if sw.SetGroups || sw.InitGroups {
			return "setpriv fails with \"setpriv: setgroups failed: Operation not permitted\""
		}
		if sw.User != "" && sw.User != strconv.FormatUint(uint64(from.UID), 10) && sw.User != from.Name ||
			sw.Group != "" && sw.Group != strconv.FormatUint(uint64(from.GID), 10) {
			return "setpriv fails with \"Operation not permitted\": only root may change its ids"
		}
	}
	return ""
}
