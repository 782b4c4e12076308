package launch

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// runsOf lists a start's runs as "argv" with "side " before side runs.
func runsOf(a *Analysis) []string {
	var out []string
	for _, run := range a.Runs {
		text := strings.Join(run.Argv, " ")
		if run.Side {
			text = "side " + text
		}
		out = append(out, text)
	}
	return out
}

func TestSupervisedRuns(t *testing.T) {
	cases := []struct {
		startCase
		runs     []string
		problems int
	}{
		{
			startCase: startCase{name: "s6-overlay longrun", spec: withArgv("/init"), files: []layerFile{
				directory("command", 0o755),
				elfFile("command/execlineb", "stub-amd64"),
				elfFile("usr/bin/bash", "stub-amd64"),
				elfFile("usr/bin/python3", "stub-amd64"),
				regular("init", 0o755, "#!/command/execlineb -S0\n/package/admin/s6-overlay/command/init $@\n"),
				regular("command/with-contenv", 0o755, "#!/command/execlineb -S0\ns6-envdir /run/s6/container_environment $@\n"),
				regular("etc/s6-overlay/s6-rc.d/api/type", 0o644, "longrun\n"),
				regular("etc/s6-overlay/s6-rc.d/api/run", 0o755, "#!/command/with-contenv bash\ncd /srv\nexec python3 -m api.server\n"),
				regular("etc/s6-overlay/s6-rc.d/setup/type", 0o644, "oneshot\n"),
				regular("etc/s6-overlay/s6-rc.d/setup/up", 0o644, "/etc/s6-overlay/scripts/setup\n"),
			}},
			runs: []string{"side python3 -m api.server", "/init"},
		},
		{
			startCase: startCase{name: "runit service dir", spec: withArgv("runsvdir", "-P", "/etc/service"), files: []layerFile{
				elfFile("usr/bin/runsvdir", "stub-amd64"),
				elfFile("usr/bin/server", "stub-amd64"),
				regular("etc/service/api/run", 0o755, "#!/bin/sh\nexec /usr/bin/server --port 8080\n"),
			}},
			runs: []string{"side /usr/bin/server --port 8080", "runsvdir -P /etc/service"},
		},
		{
			startCase: startCase{name: "supervisord program missing", spec: withArgv("supervisord", "-n"), files: []layerFile{
				elfFile("usr/bin/supervisord", "stub-amd64"),
				elfFile("usr/bin/server", "stub-amd64"),
				regular("etc/supervisord.conf", 0o644, "[supervisord]\nnodaemon=true\n[include]\nfiles=supervisord.d/*.ini\n"),
				regular("etc/supervisord.d/a.ini", 0o644, "[program:api]\ncommand=/usr/bin/server --name %(program_name)s\n"+
					"[program:off]\ncommand=/usr/bin/off\nautostart=false\n[program:gone]\ncommand = /opt/gone/bin/serve \"two words\" ; a comment\n"),
			}},
			runs:     []string{"side /usr/bin/server --name api", "side /opt/gone/bin/serve two words", "supervisord -n"},
			problems: 1,
		},
		{
			startCase: startCase{name: "server started with & before tail", spec: withArgv("/start.sh"), files: []layerFile{
				elfFile("usr/bin/tail", "stub-amd64"),
				elfFile("usr/bin/python3", "stub-amd64"),
				regular("start.sh", 0o755, "#!/bin/sh\npython3 app.py &\ntail -f /dev/null\n"),
			}},
			runs: []string{"side python3 app.py", "tail -f /dev/null"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			analysis, _ := c.replay(t)
			if got := runsOf(analysis); !slices.Equal(got, c.runs) {
				t.Errorf("runs\n got %q\nwant %q (unchecked %q)", got, c.runs, analysis.Unchecked)
			}
			if len(analysis.Problems) != c.problems {
				t.Errorf("problems: got %+v, want %d", analysis.Problems, c.problems)
			}
			last := analysis.Runs[len(analysis.Runs)-1]
			if len(last.With) != len(analysis.Runs)-1 {
				t.Errorf("the last run is started with %v, want every side run", last.With)
			}
		})
	}
}

func TestParseINI(t *testing.T) {
	sections := parseINI([]byte("; top\n[program:x]\ncommand = a b\n  c\nuser: app ; who\n# c\n[include]\nfiles=a/*.conf\n"))
	if len(sections) != 2 || sections[0].name != "program:x" || sections[1].name != "include" {
		t.Fatalf("sections %+v", sections)
	}
	if v := sections[0].value("command"); v.text != "a b c" || v.line != 3 {
		t.Errorf("command %+v", v)
	}
	if v := sections[0].value("user"); v.text != "app" {
		t.Errorf("user %+v", v)
	}
	if words, ok := splitWords(`a "b c" 'd e' f\ g "h\"i"`); !ok || !slices.Equal(words, []string{"a", "b c", "d e", "f g", `h"i`}) {
		t.Errorf("words %q", words)
	}
	if _, ok := splitWords(`a "b`); ok {
		t.Error("an open quote splits")
	}
	if env := supervisorEnv(`A="1,2",B=3`); !slices.Equal(env, []string{"A=1,2", "B=3"}) {
		t.Errorf("env %q", env)
	}
}

func FuzzParseINI(f *testing.F) {
	f.Add([]byte("[program:x]\ncommand=a \"b\" %(ENV_X)s\n  more\nenvironment=A=\"1\",B=2\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &checker{spec: Spec{Env: []string{"X=1"}}}
		for _, section := range parseINI(data) {
			for _, v := range section.values {
				splitWords(v.text)
				supervisorEnv(v.text)
				c.supervisorExpand(v.text, "/etc/x.conf", "x")
			}
		}
	})
}

// wrapperChain is /w0 … /w<n-1>, each exec'ing the next, the last running
// last.
func wrapperChain(n int, last string) []layerFile {
	var files []layerFile
	for i := range n {
		next := fmt.Sprintf("/w%d", i+1)
		if i == n-1 {
			next = last
		}
		files = append(files, regular(fmt.Sprintf("w%d", i), 0o755, "#!/bin/sh\nexec "+next+"\n"))
	}
	return files
}

// TestWrapperDepth checks that wrapper scripts are followed eight in a
// row and no further, supervisors included.
func TestWrapperDepth(t *testing.T) {
	cases := []struct {
		startCase
		runs      []string
		problems  int
		unchecked []string
	}{
		{
			// /w8 is the ninth wrapper: what it runs is not checked.
			startCase: startCase{name: "nine wrappers", spec: withArgv("/w0"), files: wrapperChain(9, "serve")},
			unchecked: []string{"/w8: more than 8 wrapper scripts in a row, not followed"},
		},
		{
			startCase: startCase{name: "eight wrappers", spec: withArgv("/w0"), files: wrapperChain(8, "serve")},
			runs:      []string{"serve"},
			problems:  1,
		},
		{
			// runsvdir is the ninth program: its services are not followed.
			startCase: startCase{name: "supervisor after eight wrappers", spec: withArgv("/w0"), files: append(wrapperChain(8, "runsvdir"),
				elfFile("usr/bin/runsvdir", "stub-amd64"),
				regular("etc/service/api/run", 0o644, "#!/bin/sh\n"))},
			runs: []string{"runsvdir"},
		},
		{
			startCase: startCase{name: "supervisor after seven wrappers", spec: withArgv("/w0"), files: append(wrapperChain(7, "runsvdir"),
				elfFile("usr/bin/runsvdir", "stub-amd64"),
				regular("etc/service/api/run", 0o644, "#!/bin/sh\n"))},
			runs:     []string{"side /etc/service/api/run", "runsvdir"},
			problems: 1,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			analysis, _ := c.replay(t)
			if got := runsOf(analysis); !slices.Equal(got, c.runs) {
				t.Errorf("runs\n got %q\nwant %q", got, c.runs)
			}
			if len(analysis.Problems) != c.problems {
				t.Errorf("problems: got %+v, want %d", analysis.Problems, c.problems)
			}
			if !slices.Equal(analysis.Unchecked, c.unchecked) {
				t.Errorf("unchecked:\n got %q\nwant %q", analysis.Unchecked, c.unchecked)
			}
		})
	}
}

// TestSupervisorStarts: where supervisord finds its configuration, what a
// program's section sets for it, and s6-overlay v2's /etc/services.d.
func TestSupervisorStarts(t *testing.T) {
	supervisord := func(conf, text string) []layerFile {
		return []layerFile{
			elfFile("usr/bin/supervisord", "stub-amd64"),
			elfFile("usr/bin/server", "stub-amd64"),
			regular(conf, 0o644, text),
		}
	}
	api := "[program:api]\ncommand=/usr/bin/server\n"
	withEnv := func(spec Spec, env ...string) Spec {
		spec.Env = append(spec.Env, env...)
		return spec
	}
	cases := []struct {
		startCase
		runs      []string
		unchecked []string
		dir       string   // the side run's hop's Dir
		env       []string // and Env
	}{
		{
			startCase: startCase{name: "-c FILE", spec: withArgv("supervisord", "-c", "/opt/conf/s.conf"), files: supervisord("opt/conf/s.conf", api)},
			runs:      []string{"side /usr/bin/server", "supervisord -c /opt/conf/s.conf"},
		},
		{
			startCase: startCase{name: "--configuration FILE", spec: withArgv("supervisord", "--configuration", "/opt/conf/s.conf"), files: supervisord("opt/conf/s.conf", api)},
			runs:      []string{"side /usr/bin/server", "supervisord --configuration /opt/conf/s.conf"},
		},
		{
			startCase: startCase{name: "-cFILE", spec: withArgv("supervisord", "-c/opt/conf/s.conf"), files: supervisord("opt/conf/s.conf", api)},
			runs:      []string{"side /usr/bin/server", "supervisord -c/opt/conf/s.conf"},
		},
		{
			startCase: startCase{name: "directory and environment", spec: withArgv("supervisord"), files: supervisord("etc/supervisord.conf",
				"[program:api]\ncommand=/usr/bin/server\ndirectory=/srv/%(program_name)s\nenvironment=A=\"1,2\",CONF=%(here)s\n")},
			runs: []string{"side /usr/bin/server", "supervisord"},
			dir:  "/srv/api", env: []string{"A=1,2", "CONF=/etc"},
		},
		{
			startCase: startCase{name: "expansions", spec: withEnv(withArgv("supervisord"), "MODEL=/models/m"), files: supervisord("etc/supervisord.conf",
				"[program:api]\ncommand=/usr/bin/server %(ENV_MODEL)s %(group_name)s %(process_num)d\n")},
			runs: []string{"side /usr/bin/server /models/m api 0", "supervisord"},
		},
		{
			startCase: startCase{name: "an unset ENV_", spec: withArgv("supervisord"), files: supervisord("etc/supervisord.conf",
				"[program:api]\ncommand=/usr/bin/server %(ENV_MODEL)s\n")},
			runs:      []string{"supervisord"},
			unchecked: []string{"/etc/supervisord.conf line 2: program api's command uses an expansion not followed"},
		},
		{
			// s6-overlay v2: /init and /etc/services.d, no /etc/s6-overlay.
			startCase: startCase{name: "s6-overlay v2", spec: withArgv("/init"), files: []layerFile{
				elfFile("bin/execlineb", "stub-amd64"),
				elfFile("usr/bin/server", "stub-amd64"),
				regular("init", 0o755, "#!/bin/execlineb -S0\n/etc/s6/init/init-stage1 $@\n"),
				regular("etc/services.d/api/run", 0o755, "#!/bin/sh\nexec /usr/bin/server\n"),
			}},
			runs: []string{"side /usr/bin/server", "/init"},
		},
		{
			// The same directory does not make another program a supervisor.
			startCase: startCase{name: "services.d beside another program", spec: withArgv("/usr/bin/server"), files: []layerFile{
				elfFile("usr/bin/server", "stub-amd64"),
				regular("etc/services.d/api/run", 0o755, "#!/bin/sh\nexec /usr/bin/server\n"),
			}},
			runs: []string{"/usr/bin/server"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			analysis, _ := c.replay(t)
			if got := runsOf(analysis); !slices.Equal(got, c.runs) {
				t.Errorf("runs\n got %q\nwant %q (unchecked %q)", got, c.runs, analysis.Unchecked)
			}
			if !slices.Equal(analysis.Unchecked, c.unchecked) {
				t.Errorf("unchecked:\n got %q\nwant %q", analysis.Unchecked, c.unchecked)
			}
			if len(analysis.Problems) > 0 {
				t.Errorf("problems: %+v", analysis.Problems)
			}
			if len(c.runs) < 2 {
				return
			}
			hop := analysis.Runs[0].Via[len(analysis.Runs[0].Via)-1]
			if hop.Dir != c.dir || !slices.Equal(hop.Env, c.env) {
				t.Errorf("hop dir %q env %q, want %q %q", hop.Dir, hop.Env, c.dir, c.env)
			}
		})
	}
}

func TestSplitWordsEscapes(t *testing.T) {
	// In double quotes shlex lets a backslash escape only " and itself.
	if words, ok := splitWords(`"a\\b" "c\d"`); !ok || !slices.Equal(words, []string{`a\b`, `c\d`}) {
		t.Errorf("words %q", words)
	}
}
