package launch

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"

	"github.com/modellint/modellint/lint/image"
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

// String names the user for messages: "uid 1000 (app)".
func (u User) String() string {
	s := "uid " + strconv.FormatUint(uint64(u.UID), 10)
	if u.Name != "" {
		s += " (" + u.Name + ")"
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
	if u.UID == 0 {
		return true // CAP_DAC_READ_SEARCH
	}
	return u.permits(mode, uid, gid, 1)
}

// CanRead is the check for opening a file, or listing a directory, for
// reading: root reads anything (CAP_DAC_OVERRIDE), others need the read
// bit of the class that matches first.
func (u User) CanRead(mode, uid, gid uint32) bool {
	if u.UID == 0 {
		return true
	}
	return u.permits(mode, uid, gid, 4)
}

func (u User) permits(mode, uid, gid, bit uint32) bool {
	if u.UID == 0 {
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
