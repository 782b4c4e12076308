package shell

import (
	"slices"
	"strings"
)

// Switch is a change of user a wrapper makes before it execs the program
// (gosu app server, setpriv --reuid 1000 server): the words it was given,
// which the caller resolves against the image's /etc/passwd and
// /etc/group as the wrapper does.
type Switch struct {
	// Wrapper is the wrapper's base name (gosu, su-exec, setpriv,
	// runuser, chroot, s6-setuidgid, s6-applyuidgid); Line where it runs.
	Wrapper string
	Line    int
	// User and Group are the user and primary group as written, a name or
	// a number; "" leaves them to the wrapper (the user's own group, or
	// the one the process has).
	User, Group string
	// SetGroups says the supplementary groups are set to Groups, as
	// written (setpriv --groups, --clear-groups; runuser -G;
	// s6-applyuidgid -G); InitGroups that they are the user's from
	// /etc/group (setpriv --init-groups). Neither leaves them to the
	// wrapper.
	SetGroups  bool
	Groups     []string
	InitGroups bool
	// KeepEnv says the wrapper leaves HOME as it is where it would set it
	// (runuser -m); ResetEnv that it sets HOME where it would not
	// (setpriv --reset-env).
	KeepEnv, ResetEnv bool
	// Unknown says why a word of the switch is known only at run time
	// (gosu "$APP_USER"): who the program runs as is then not known.
	Unknown string
}

func (s Switch) equal(o Switch) bool {
	return s.Wrapper == o.Wrapper && s.Line == o.Line && s.User == o.User && s.Group == o.Group &&
		s.SetGroups == o.SetGroups && strings.Join(s.Groups, ",") == strings.Join(o.Groups, ",") &&
		s.InitGroups == o.InitGroups && s.KeepEnv == o.KeepEnv && s.ResetEnv == o.ResetEnv && s.Unknown == o.Unknown
}

// switchers are the wrappers that run their program as another user;
// each returns the program's argv and the switch, ok false when the
// words are not a wrapper's use of them (runuser without -u runs the
// user's shell, as su does).
var switchers = map[string]func(args []field) (program []field, sw Switch, ok bool){
	"gosu":    userSpecThen,
	"su-exec": userSpecThen,
	"setpriv": setprivThen,
	"runuser": runuserThen,
	"chroot":  chrootThen,
}

// userSpecThen is gosu USER[:GROUP] PROG and su-exec USER[:GROUP] PROG
// (https://github.com/tianon/gosu, https://github.com/ncopa/su-exec).
func userSpecThen(args []field) ([]field, Switch, bool) {
	if len(args) < 2 {
		return nil, Switch{}, true
	}
	var sw Switch
	sw.User, sw.Group, _ = strings.Cut(args[0].text, ":")
	sw.Unknown = args[0].unknown
	return args[1:], sw, true
}

// setprivThen is setpriv [options] PROG (util-linux setpriv(1)): --reuid
// and --euid set the uid the kernel checks permissions with, --regid and
// --egid the gid; --clear-groups, --groups and --init-groups the
// supplementary groups; --reset-env sets HOME from the user's entry.
// --ruid and --rgid alone change only the real ids, which no permission
// check reads.
func setprivThen(args []field) ([]field, Switch, bool) {
	var sw Switch
	valued := []string{"--ruid", "--euid", "--reuid", "--rgid", "--egid", "--regid", "--groups",
		"--inh-caps", "--ambient-caps", "--bounding-set", "--securebits", "--pdeathsig", "--selinux-label",
		"--apparmor-profile", "--landlock-access", "--landlock-rule", "--seccomp-filter"}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(a.text, "=")
		switch {
		case a.text == "--":
			return args[i+1:], sw, true
		case len(a.text) < 2 || a.text[0] != '-':
			return args[i:], sw, true
		case !hasValue && slices.Contains(valued, name):
			i++
			if i >= len(args) {
				return nil, sw, true
			}
			value = args[i].text
			if args[i].unknown != "" && sw.Unknown == "" && setprivUser(name) {
				sw.Unknown = args[i].unknown
			}
		case a.unknown != "" && setprivUser(name) && sw.Unknown == "":
			sw.Unknown = a.unknown
		}
		switch name {
		case "--reuid", "--euid":
			sw.User = value
		case "--regid", "--egid":
			sw.Group = value
		case "--clear-groups":
			sw.SetGroups, sw.Groups, sw.InitGroups = true, nil, false
		case "--groups":
			sw.SetGroups, sw.Groups, sw.InitGroups = true, strings.Split(value, ","), false
		case "--init-groups":
			sw.InitGroups, sw.SetGroups = true, false
		case "--reset-env":
			sw.ResetEnv = true
		}
	}
	return nil, sw, true
}

// setprivUser says a setpriv option names who the program runs as.
func setprivUser(name string) bool {
	switch name {
	case "--reuid", "--euid", "--regid", "--egid", "--groups":
		return true
	}
	return false
}

// runuserThen is runuser [options] -u USER [--] PROG (util-linux
// runuser(1), login-utils/su-common.c): the groups -g and -G name are the
// supplementary ones, -g's (else the first -G's) the primary; -m and -p
// keep HOME, which it otherwise sets from the user's entry.
func runuserThen(args []field) ([]field, Switch, bool) {
	var sw Switch
	user := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		text := a.text
		value := ""
		takes := false
		switch {
		case text == "--":
			i++
			return runuserProgram(args, i, sw, user)
		case len(text) < 2 || text[0] != '-':
			return runuserProgram(args, i, sw, user)
		case strings.HasPrefix(text, "--"):
			name, v, has := strings.Cut(text, "=")
			switch name {
			case "--user":
				text = "-u"
			case "--group":
				text = "-g"
			case "--supp-group":
				text = "-G"
			case "--preserve-environment":
				text = "-p"
			case "--whitelist-environment":
				text = "-w"
			default:
				continue
			}
			if has {
				value, takes = v, true
				a = field{text: v, unknown: a.unknown}
			}
		}
		// Short options, grouped as getopt reads them ("c:fg:G:lmpPs:u:hVw:").
		for j := 1; j < len(text); j++ {
			letter := text[j]
			if !strings.ContainsRune("cgGsuw", rune(letter)) {
				if letter == 'm' || letter == 'p' {
					sw.KeepEnv = true
				}
				continue
			}
			if !takes {
				value, a = text[j+1:], field{text: text[j+1:], unknown: a.unknown}
				if value == "" {
					i++
					if i >= len(args) {
						return nil, sw, user
					}
					value, a = args[i].text, args[i]
				}
			}
			switch letter {
			case 'u':
				user, sw.User = true, value
				if a.unknown != "" {
					sw.Unknown = a.unknown
				}
			case 'g':
				sw.Group = value
				sw.SetGroups, sw.Groups = true, append(sw.Groups, value)
				if a.unknown != "" {
					sw.Unknown = a.unknown
				}
			case 'G':
				sw.SetGroups, sw.Groups = true, append(sw.Groups, value)
				if a.unknown != "" {
					sw.Unknown = a.unknown
				}
			}
			break
		}
	}
	return nil, sw, user
}

func runuserProgram(args []field, i int, sw Switch, user bool) ([]field, Switch, bool) {
	if !user {
		return nil, Switch{}, false
	}
	if sw.Group == "" && len(sw.Groups) > 0 {
		sw.Group = sw.Groups[0] // -G alone also sets the primary group
	}
	if i >= len(args) {
		return nil, sw, true
	}
	return args[i:], sw, true
}

// chrootThen is chroot [--userspec=USER[:GROUP]] [--groups=G_LIST]
// [--skip-chdir] NEWROOT PROG (coreutils chroot(1); its options end at the
// first operand). Only NEWROOT / is read, which changes nothing but the
// ids: another root has other files and accounts, so chroot is then the
// program, as it is without PROG (it runs $SHELL -i). Without --userspec
// and --groups it changes no id either, and is no switch (changes false).
func chrootThen(args []field) (program []field, sw Switch, ok bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(a.text, "=")
		switch {
		case a.text == "--":
			return chrootProgram(args[i+1:], sw)
		case !strings.HasPrefix(a.text, "--"):
			return chrootProgram(args[i:], sw)
		case name != "--userspec" && name != "--groups":
			continue // --skip-chdir
		case !hasValue:
			if i++; i >= len(args) {
				return nil, Switch{}, false
			}
			a, value = args[i], args[i].text
		}
		if a.unknown != "" {
			sw.Unknown = a.unknown
		}
		if name == "--userspec" {
			sw.User, sw.Group, _ = strings.Cut(value, ":")
		} else if value != "" {
			sw.SetGroups, sw.Groups = true, strings.Split(value, ",")
		}
	}
	return nil, Switch{}, false
}

func chrootProgram(args []field, sw Switch) ([]field, Switch, bool) {
	if len(args) < 2 || args[0].unknown != "" || !strings.HasPrefix(args[0].text, "/") || strings.Trim(args[0].text, "/") != "" {
		return nil, Switch{}, false
	}
	return args[1:], sw, true
}

// changes says a switch the wrappers' words gave changes an id: chroot
// without --userspec or --groups does not.
func (s Switch) changes() bool {
	return s.Wrapper != "chroot" || s.User != "" || s.Group != "" || s.SetGroups || s.Unknown != ""
}
