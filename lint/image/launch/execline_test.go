package launch

import (
	"slices"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint/image/launch/shell"
)

// s6Overlay are the files of an s6-overlay v3 image with execline and
// python3; a run script is added per case.
var s6Overlay = []layerFile{
	directory("command", 0o755),
	elfFile("command/execlineb", "stub-amd64"),
	elfFile("usr/bin/python3", "stub-amd64"),
	regular("init", 0o755, "#!/command/execlineb -S0\n/package/admin/s6-overlay/command/init $@\n"),
	regular("etc/s6-overlay/s6-rc.d/api/type", 0o644, "longrun\n"),
}

func s6Run(script string) []layerFile {
	return append(slices.Clone(s6Overlay), regular("etc/s6-overlay/s6-rc.d/api/run", 0o755, script))
}

// TestExeclineRuns follows s6 run scripts written in execline to the
// program their chain-loaders exec into.
func TestExeclineRuns(t *testing.T) {
	const runScript = "/etc/s6-overlay/s6-rc.d/api/run"
	cases := []struct {
		startCase
		runs      []string
		unchecked string // a reason the start records, "" for none
		problem   Reason // the one problem, 0 for none
		hop       Hop    // the run script's hop's Dir, Env, Line and ExecBy, when checked
	}{
		{
			startCase: startCase{name: "linuxserver shape", spec: withArgv("/init"), files: s6Run("#!/command/execlineb -P\n" +
				"# the API\nwith-contenv\ns6-setuidgid abc\nfdmove -c 2 1\n" +
				"exec python3 -m vllm.entrypoints.openai.api_server \"--served-model-name\" \"llama 3\"\n")},
			runs: []string{"side python3 -m vllm.entrypoints.openai.api_server --served-model-name llama 3", "/init"},
			hop:  Hop{Line: 6, ExecBy: "exec"},
		},
		{
			startCase: startCase{name: "cd and export", spec: withArgv("/init"), files: s6Run("#!/command/execlineb -P\n" +
				"cd /srv export HF_HOME /data\ns6-notifyoncheck -d -n 0 -w1000 -c \"true\"\npython3 -m api\n")},
			runs: []string{"side python3 -m api", "/init"},
			hop:  Hop{Line: 4, Dir: "/srv", Env: []string{"HF_HOME=/data"}, ExecBy: "s6-notifyoncheck"},
		},
		{
			startCase: startCase{name: "importas", spec: withArgv("/init"), files: s6Run("#!/command/execlineb -P\n" +
				"with-contenv\nimportas -i PORT PORT\npython3 -m api --port $PORT\n")},
			runs:      []string{"/init"},
			unchecked: runScript + ": an execline script of a shape not read (line 4: a $ substitution), not followed to the program it runs",
		},
		{
			startCase: startCase{name: "importas without substitution", spec: withArgv("/init"), files: s6Run("#!/command/execlineb -P\n" +
				"importas -D 8000 PORT PORT\npython3 -m api\n")},
			runs:      []string{"/init"},
			unchecked: runScript + ": line 2 runs importas, an execline or s6 program whose effect is not modelled, not followed to the program it runs",
		},
		{
			startCase: startCase{name: "block", spec: withArgv("/init"), files: s6Run("#!/command/execlineb -P\n" +
				"foreground { echo starting }\npython3 -m api\n")},
			runs:      []string{"/init"},
			unchecked: runScript + ": an execline script of a shape not read (line 2: a { } block), not followed to the program it runs",
		},
		{
			startCase: startCase{name: "loader cut short", spec: withArgv("/init"), files: s6Run("#!/command/execlineb -P\nfdmove -c 2\n")},
			runs:      []string{"/init"},
			unchecked: runScript + ": line 2: fdmove is not given the options and operands it takes before the program, not followed to the program it runs",
		},
		{
			// execvp reports the missing program, not a shell.
			startCase: startCase{name: "program missing", spec: withArgv("/init"), files: s6Run("#!/command/execlineb -P\n" +
				"fdmove -c 2 1 serve --port 8000\n")},
			runs:    []string{"side serve --port 8000", "/init"},
			problem: NotInPath,
			hop:     Hop{Line: 2, ExecBy: "fdmove"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			analysis, _ := c.replay(t)
			if got := runsOf(analysis); !slices.Equal(got, c.runs) {
				t.Errorf("runs\n got %q\nwant %q (unchecked %q)", got, c.runs, analysis.Unchecked)
			}
			if c.unchecked != "" && !slices.Contains(analysis.Unchecked, c.unchecked) {
				t.Errorf("unchecked:\n got %q\nwant %q among them", analysis.Unchecked, c.unchecked)
			}
			if c.unchecked == "" && len(analysis.Unchecked) > 0 {
				t.Errorf("unchecked: %q", analysis.Unchecked)
			}
			switch {
			case c.problem == 0 && len(analysis.Problems) > 0:
				t.Errorf("problems: %+v", analysis.Problems)
			case c.problem != 0 && (len(analysis.Problems) != 1 || analysis.Problems[0].Reason != c.problem ||
				analysis.Problems[0].ExecBy != c.hop.ExecBy || analysis.Problems[0].ByShell):
				t.Errorf("problems: got %+v, want one %v exec'd by %s", analysis.Problems, c.problem, c.hop.ExecBy)
			}
			if c.hop.Line == 0 {
				return
			}
			via := analysis.Runs[0].Via
			if len(via) != 2 || via[1].Script != runScript {
				t.Fatalf("via %+v, want the service, then its run script", via)
			}
			hop := via[1]
			if hop.Line != c.hop.Line || hop.Dir != c.hop.Dir || !slices.Equal(hop.Env, c.hop.Env) || hop.ExecBy != c.hop.ExecBy || !hop.Exec {
				t.Errorf("hop %+v, want line %d, dir %q, env %q, exec'd by %s", hop, c.hop.Line, c.hop.Dir, c.hop.Env, c.hop.ExecBy)
			}
		})
	}
}

func TestParseExecline(t *testing.T) {
	words, err := ParseExecline([]byte("#!/command/execlineb -P\n# comment\nfdmove -c 2 1 # trailing\n" +
		"exec \"a \\\"b\\\"\\\\\" \"two\\\nlines\" x#y\n\"\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, word := range words {
		texts = append(texts, word.Text)
	}
	want := []string{"fdmove", "-c", "2", "1", "exec", `a "b"\`, "twolines", "x#y", ""}
	if !slices.Equal(texts, want) {
		t.Errorf("words %q, want %q", texts, want)
	}
	if words[0].Line != 3 || words[4].Line != 4 || words[7].Line != 5 || words[8].Line != 6 {
		t.Errorf("lines %+v", words)
	}
	for script, reason := range map[string]string{
		"if { true } prog":   "line 1: a { } block",
		"prog ${X}":          "line 1: a $ substitution",
		"prog \"$X\"":        "line 1: a $ substitution",
		"prog \"open":        "line 1: an unclosed quoted string",
		"prog a\\ b":         "line 1: a backslash outside a quoted string",
		"\n\nprog \"\\q\"":   "line 3: the escape \\q in a quoted string",
		"prog \"a\\":         "line 1: an unclosed quoted string",
		"x\n\"a\nb\" {":      "line 3: a { } block",
		"with-contenv prog}": "line 1: a { } block",
	} {
		if _, err := ParseExecline([]byte(script)); err == nil || err.Error() != reason {
			t.Errorf("%q: error %v, want %q", script, err, reason)
		}
	}
}

func TestPeelExecline(t *testing.T) {
	cases := []struct {
		script, argv, execBy, reason string
	}{
		{script: "exec -c -a name prog x", argv: "prog x", execBy: "exec"},
		{script: "exec -ca name prog", argv: "prog", execBy: "exec"},
		{script: "exec -aname prog", argv: "prog", execBy: "exec"},
		{script: "redirfd -w 1 /dev/null s6-envdir -I -- /run/env /usr/bin/prog", argv: "/usr/bin/prog", execBy: "s6-envdir"},
		{script: "/command/s6-setuidgid abc prog", argv: "prog", execBy: "s6-setuidgid"},
		{script: "prog", argv: "prog", execBy: "execlineb"},
		{script: "fdmove -x 2 1 prog", reason: "line 1: fdmove is not given the options and operands it takes before the program"},
		{script: "exec -a", reason: "line 1: exec is not given the options and operands it takes before the program"},
		{script: "cd app prog", reason: "line 1: cd to the relative directory app"},
		{script: "with-contenv", reason: "it runs no program after its chain-loaders"},
		{script: "s6-softlimit -m 100 prog", reason: "line 1 runs s6-softlimit, an execline or s6 program whose effect is not modelled"},
	}
	for _, c := range cases {
		words, err := ParseExecline([]byte(c.script))
		if err != nil {
			t.Fatalf("%q: %v", c.script, err)
		}
		command, execBy, reason := peelExecline(words)
		if reason != c.reason || strings.Join(command.Argv, " ") != c.argv || execBy != c.execBy {
			t.Errorf("%q: argv %q by %q (%q), want %q by %q (%q)", c.script, command.Argv, execBy, reason, c.argv, c.execBy, c.reason)
		}
	}
	words, _ := ParseExecline([]byte("exec -c s6-envdir /env prog"))
	if command, _, _ := peelExecline(words); len(command.Tainted) != 2 {
		t.Errorf("tainted %q, want exec -c's and s6-envdir's", command.Tainted)
	}
}

func FuzzParseExecline(f *testing.F) {
	for _, seed := range []string{
		"#!/command/execlineb -P\nwith-contenv\ns6-setuidgid abc\nfdmove -c 2 1\nexec python3 -m app \"a b\"\n",
		"exec -ca x prog", "redirfd -w 1 /dev/null prog", "\"a\\\nb\\\"\\\\\"", "if { x } y", "$x", "\"unclosed",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		words, err := ParseExecline(text)
		if err != nil {
			return
		}
		if len(words) > maxExeclineWords {
			t.Fatalf("%d words", len(words))
		}
		line := 1
		for _, word := range words {
			if word.Line < line {
				t.Fatalf("word %q on line %d after line %d", word.Text, word.Line, line)
			}
			line = word.Line
		}
		command, execBy, reason := peelExecline(words)
		if reason == "" && (len(command.Argv) == 0 || execBy == "") {
			t.Fatalf("peeled to %q by %q without a reason", command.Argv, execBy)
		}
	})
}

// TestPeelExeclineSwitches: s6-setuidgid and s6-applyuidgid are peeled
// with the user they switch to.
func TestPeelExeclineSwitches(t *testing.T) {
	cases := []struct {
		script string
		want   []shell.Switch
	}{
		{script: "s6-setuidgid abc prog", want: []shell.Switch{{Wrapper: "s6-setuidgid", Line: 1, User: "abc"}}},
		{script: "s6-setuidgid \"\" prog"},
		{script: "s6-applyuidgid -u 1000 -g 100 -G 44,45 prog",
			want: []shell.Switch{{Wrapper: "s6-applyuidgid", Line: 1, User: "1000", Group: "100", SetGroups: true, Groups: []string{"44", "45"}}}},
		{script: "s6-applyuidgid -zu1000 prog", want: []shell.Switch{{Wrapper: "s6-applyuidgid", Line: 1, User: "1000"}}},
		{script: "s6-applyuidgid -U prog",
			want: []shell.Switch{{Wrapper: "s6-applyuidgid", Line: 1, Unknown: "line 1: s6-applyuidgid -U takes the ids from $UID, $GID and $GIDLIST"}}},
	}
	for _, c := range cases {
		words, err := ParseExecline([]byte(c.script))
		if err != nil {
			t.Fatalf("%q: %v", c.script, err)
		}
		command, _, reason := peelExecline(words)
		if reason != "" || strings.Join(command.Argv, " ") != "prog" {
			t.Fatalf("%q: argv %q (%q)", c.script, command.Argv, reason)
		}
		if len(command.Switches) != len(c.want) {
			t.Fatalf("%q: switches %+v, want %+v", c.script, command.Switches, c.want)
		}
		for i := range c.want {
			got, want := command.Switches[i], c.want[i]
			if got.Wrapper != want.Wrapper || got.User != want.User || got.Group != want.Group || got.SetGroups != want.SetGroups ||
				!slices.Equal(got.Groups, want.Groups) || got.Unknown != want.Unknown {
				t.Errorf("%q: switch %+v, want %+v", c.script, got, want)
			}
		}
	}
}

// TestExeclineSwitchedRun: an s6 service that drops to a uid runs its
// program as that uid; a name is not judged, since s6-overlay's init
// scripts may add or renumber it first.
func TestExeclineSwitchedRun(t *testing.T) {
	for _, c := range []struct {
		loader, user string
		problem      Reason
	}{
		{loader: "s6-applyuidgid -u 1000 -g 1000", user: "uid 1000 (app, via s6-applyuidgid)", problem: ParentNotSearchable},
		{loader: "s6-setuidgid app", user: "the user s6-setuidgid switches to (/init runs init scripts before its services, which may change the accounts)"},
	} {
		files := append(s6Run("#!/command/execlineb -P\n"+c.loader+"\n/root/.local/bin/serve\n"), userLocalBin...)
		analysis, _ := startCase{name: c.loader, spec: withArgv("/init"), files: files}.replay(t)
		var run *Run
		for i := range analysis.Runs {
			if analysis.Runs[i].Side {
				run = &analysis.Runs[i]
			}
		}
		if run == nil || run.User.String() != c.user {
			t.Errorf("%s: runs %+v, want one as %s", c.loader, analysis.Runs, c.user)
		}
		switch {
		case c.problem == 0 && len(analysis.Problems) > 0:
			t.Errorf("%s: problems %+v", c.loader, analysis.Problems)
		case c.problem != 0 && (len(analysis.Problems) != 1 || analysis.Problems[0].Reason != c.problem):
			t.Errorf("%s: problems %+v, want one %v", c.loader, analysis.Problems, c.problem)
		}
	}
}
