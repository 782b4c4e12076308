package shell

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

func env(pairs ...string) func(string) (string, bool) {
	vars := map[string]string{}
	for i := 0; i+1 < len(pairs); i += 2 {
		vars[pairs[i]] = pairs[i+1]
	}
	return func(name string) (string, bool) {
		v, ok := vars[name]
		return v, ok
	}
}

func cmd(line int, exec bool, argv ...string) Command {
	return Command{Argv: argv, Line: line, Exec: exec}
}

// switched says c runs after the wrappers' changes of user.
func switched(c Command, switches ...Switch) Command {
	c.Switches = switches
	return c
}

// underInit says c runs under the init wrapper name.
func underInit(c Command, name string) Command {
	c.Init = name
	return c
}

// trapped says a trap on TERM set at line is in effect when the script
// waits for c.
func trapped(c Command, line int) Command {
	c.TermTrap = line
	return c
}

func background(c Command) Command {
	c.Background = true
	return c
}

// after says the script goes on to the builtin argv at line once c returns.
func after(c Command, line int, argv ...string) Command {
	c.After, c.AfterLine = argv, line
	return c
}

func before(c Command, earlier ...Command) Command {
	c.Before = earlier
	return c
}

type followCase struct {
	name       string
	script     string
	args       []string
	lookup     func(string) (string, bool)
	want       []Command
	unresolved []string
}

func checkResult(t *testing.T, c followCase, got *Result, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	if !slices.EqualFunc(got.Commands, c.want, Command.equal) {
		t.Errorf("%s: commands\n got %+v\nwant %+v", c.name, got.Commands, c.want)
	}
	if !slices.Equal(got.Unresolved, c.unresolved) {
		t.Errorf("%s: unresolved\n got %q\nwant %q", c.name, got.Unresolved, c.unresolved)
	}
}

func TestFollow(t *testing.T) {
	cases := []followCase{
		{
			name: "the TF Serving wrapper runs the server as its last command",
			script: "#!/bin/bash\n" +
				`tensorflow_model_server --port=8500 --rest_api_port=8501 --model_name=${MODEL_NAME} --model_base_path=${MODEL_BASE_PATH}/${MODEL_NAME} "$@"` + "\n",
			args:   []string{"--rest_api_port=9000"},
			lookup: env("MODEL_NAME", "resnet", "MODEL_BASE_PATH", "/models"),
			want: []Command{cmd(2, false, "tensorflow_model_server", "--port=8500", "--rest_api_port=8501",
				"--model_name=resnet", "--model_base_path=/models/resnet", "--rest_api_port=9000")},
		},
		{
			name:   "argv[0] from the environment",
			script: "#!/bin/sh\nexec \"$SERVER\" --port 8000\n",
			lookup: env("SERVER", "/opt/triton/bin/tritonserver"),
			want:   []Command{cmd(2, true, "/opt/triton/bin/tritonserver", "--port", "8000")},
		},
		{
			name:   "the script's own assignment wins over the environment",
			script: "SERVER=/usr/local/bin/vllm\nexec $SERVER serve \"$@\"\n",
			args:   []string{"--model", "facebook/opt-125m"},
			lookup: env("SERVER", "/elsewhere"),
			want:   []Command{cmd(2, true, "/usr/local/bin/vllm", "serve", "--model", "facebook/opt-125m")},
		},
		{
			name:   "export, readonly and ${X:=default} are tracked in order",
			script: "export BIN=/opt/bin\nreadonly PORT=${PORT:-8000}\n: ${WORKERS:=4}\nexec \"$BIN/server\" --port \"$PORT\" --workers=$WORKERS\n",
			lookup: env("PORT", "9000"),
			want:   []Command{cmd(4, true, "/opt/bin/server", "--port", "9000", "--workers=4")},
		},
		{
			name:   "if/else with two execs gives both",
			script: "if [ -e /dev/nvidia0 ]; then\n  exec /opt/gpu/server \"$@\"\nelse\n  exec /opt/cpu/server \"$@\"\nfi\n",
			args:   []string{"-v"},
			want:   []Command{cmd(2, true, "/opt/gpu/server", "-v"), cmd(4, true, "/opt/cpu/server", "-v")},
		},
		{
			name: "an if without else falls through to the statements after it",
			script: "if [ -n \"$DEBUG\" ]; then\n  exec /usr/bin/server --debug\nfi\n" +
				"if [ -z \"$MODEL\" ]; then echo 'MODEL is required' >&2; exit 1; fi\nexec /usr/bin/server --model \"$MODEL\"\n",
			lookup: env("MODEL", "m"),
			want:   []Command{cmd(2, true, "/usr/bin/server", "--debug"), cmd(5, true, "/usr/bin/server", "--model", "m")},
		},
		{
			name: "a case on $1 gives each clause",
			script: "case \"$1\" in\n  serve)\n    shift\n    exec tritonserver \"$@\" ;;\n" +
				"  worker) exec python3 worker.py ;;\n  *) echo \"usage: $0 serve|worker\" >&2; exit 1 ;;\nesac\n",
			args: []string{"serve", "--model-repository=/models"},
			want: []Command{cmd(4, true, "tritonserver", "--model-repository=/models"), cmd(5, true, "python3", "worker.py")},
		},
		{
			name:   "statements after exec are never reached",
			script: "set -e\necho starting\nexec python3 -m vllm.entrypoints.openai.api_server \"$@\"\necho never\n",
			args:   []string{"--port", "8000"},
			want:   []Command{cmd(3, true, "python3", "-m", "vllm.entrypoints.openai.api_server", "--port", "8000")},
		},
		{
			name:   "exec \"$@\" runs the arguments",
			script: "#!/bin/sh\nset -e\nexec \"$@\"\n",
			args:   []string{"python3", "serve.py", "--port=8080"},
			want:   []Command{cmd(3, true, "python3", "serve.py", "--port=8080")},
		},
		{
			name:       "exec \"$@\" without arguments",
			script:     "#!/bin/sh\nset -e\nexec \"$@\"\n",
			unresolved: []string{"line 3: runs its arguments, and there are none"},
		},
		{
			name:       "a command built by command substitution",
			script:     "exec $(cat /cmd) --port 80\n",
			unresolved: []string{"line 1: the command is built at run time ($(…))"},
		},
		{
			name:       "a variable set from a command substitution",
			script:     "SERVER=`cat /etc/server`\nexec \"$SERVER\"\n",
			unresolved: []string{"line 2: the command is built at run time (`…`)"},
		},
		{
			name:       "an unset variable as argv[0]",
			script:     "echo starting\nexec $SERVER --port 1\n",
			unresolved: []string{"line 2: $SERVER is not set"},
		},
		{
			name: "what cannot be followed before the final command does not matter",
			script: "find /docker-entrypoint.d -type f | sort | while read -r f; do\n  \"$f\"\ndone\n" +
				"$(cat /prep)\n$UNSET_HOOK\nexec \"$@\"\n",
			args: []string{"nginx", "-g", "daemon off;"},
			want: []Command{cmd(6, true, "nginx", "-g", "daemon off;")},
		},
		{
			name:       "a branch that ends on what cannot be followed",
			script:     "if [ -f /etc/custom ]; then\n  exec \"$(cat /etc/custom)\"\nfi\nexec /usr/bin/server\n",
			want:       []Command{cmd(4, true, "/usr/bin/server")},
			unresolved: []string{"line 2: the command is built at run time ($(…))"},
		},
		{
			name:       "a nested script that does not parse",
			script:     "exec busybox sh -c 'exec \"/usr/bin/server'\n",
			unresolved: []string{"line 1: the sh -c script does not parse: 1:6: reached EOF without closing quote `\"`"},
		},
		{
			name:   "a word that cannot be expanded at the very end of the script stays as written",
			script: "exec /usr/bin/server --host=$(hostname)",
			want:   []Command{cmd(1, true, "/usr/bin/server", "--host=$(hostname)")},
		},
		{
			name:   "later words that cannot be expanded stay as written",
			script: "exec /usr/bin/server --host=$(hostname) --port ${PORT:-8000} --id=$ID\n",
			want:   []Command{cmd(1, true, "/usr/bin/server", "--host=$(hostname)", "--port", "8000", "--id=$ID")},
		},
		{
			name:   "a keep-alive loop lives on its body",
			script: "/opt/bin/start-daemon\nwhile true; do\n  sleep 3600\ndone\n",
			want:   []Command{cmd(3, false, "sleep", "3600")},
		},
		{
			name:   "a function called with arguments",
			script: "#!/bin/bash\nmain() {\n  local repo=$1\n  exec tritonserver --model-repository=\"$repo\" \"$@\"\n}\nmain --model-repository=/models\n",
			want:   []Command{cmd(4, true, "tritonserver", "--model-repository=--model-repository=/models", "--model-repository=/models")},
		},
		{
			name:   "return ends only the function",
			script: "setup() {\n  [ -d /models ] && return\n  mkdir -p /models\n}\nsetup\nexec /usr/bin/server\n",
			want:   []Command{cmd(6, true, "/usr/bin/server")},
		},
		{
			name:   "gosu runs the program after the user",
			script: "exec gosu app /usr/bin/server --x\n",
			want:   []Command{switched(cmd(1, true, "/usr/bin/server", "--x"), Switch{Wrapper: "gosu", Line: 1, User: "app"})},
		},
		{
			name:   "env runs the program after its assignments",
			script: "exec env FOO=1 /usr/bin/server\n",
			want:   []Command{cmd(1, true, "/usr/bin/server")},
		},
		{
			name:   "wrappers inside wrappers",
			script: "exec /sbin/tini -s -- /usr/bin/env -i PATH=/bin nohup nice -n 5 stdbuf -oL /usr/bin/server -v\n",
			want:   []Command{underInit(cmd(1, true, "/usr/bin/server", "-v"), "tini")},
		},
		{
			name:   "more wrappers",
			script: "exec timeout -s TERM 1h su-exec app:app dumb-init -c setpriv --reuid 1000 --init-groups command /usr/bin/server -w\n",
			want: []Command{underInit(switched(cmd(1, true, "/usr/bin/server", "-w"), Switch{Wrapper: "su-exec", Line: 1, User: "app", Group: "app"},
				Switch{Wrapper: "setpriv", Line: 1, User: "1000", InitGroups: true}), "dumb-init")},
		},
		{
			name:   "an init before sh -c is the init of what the string runs",
			script: "exec dumb-init -- sh -c '/app/prepare.sh; /usr/bin/server'\n",
			want:   []Command{underInit(cmd(1, true, "/usr/bin/server"), "dumb-init")},
		},
		{
			name:   "an init inside sh -c stays the init",
			script: "exec sh -c 'exec tini -- /usr/bin/server'\n",
			want:   []Command{underInit(cmd(1, true, "/usr/bin/server"), "tini")},
		},
		{
			name:       "a wrapper given no program",
			script:     "exec tini --\n",
			unresolved: []string{"line 1: tini is given no program to run"},
		},
		{
			name:   "sh -c inside a script sees exported variables only",
			script: "export MODEL=resnet\nLOCAL=x\nexec sh -c 'exec /usr/bin/server --model=$MODEL --local=$LOCAL --port=$PORT \"$@\"' server --extra\n",
			lookup: env("PORT", "8500"),
			want:   []Command{cmd(3, true, "/usr/bin/server", "--model=resnet", "--local=$LOCAL", "--port=8500", "--extra")},
		},
		{
			name:   "assignments before a command are for that command only",
			script: "MODEL=m sh -c 'exec /usr/bin/prep --model=$MODEL'\nexec /usr/bin/server --model=\"$MODEL\"\n",
			lookup: env("MODEL", "from-env"),
			want:   []Command{cmd(2, true, "/usr/bin/server", "--model=from-env")},
		},
		{
			name:   "a nested sh -c that is the last command",
			script: "#!/bin/sh\n\nbash -ec \"\n  cd /app\n  ./server --port=${PORT}\n\"\n",
			lookup: env("PORT", "80"),
			want:   []Command{cmd(5, false, "./server", "--port=80")},
		},
		{
			name:   "an exec in a nested sh -c replaces that shell, not the script's",
			script: "#!/bin/sh\nsh -c 'exec /usr/bin/server --port=80'\n",
			want:   []Command{cmd(2, false, "/usr/bin/server", "--port=80")},
		},
		{
			name:   "a nested sh -c the script execs ends on its last command",
			script: "#!/bin/sh\nexec sh -c 'cd /app; ./server'\n",
			want:   []Command{cmd(2, true, "./server")},
		},
		{
			name:   "|| gives both sides, && the right one",
			script: "cd /app && /usr/bin/primary || /usr/bin/fallback\n",
			want:   []Command{cmd(1, false, "/usr/bin/primary"), cmd(1, false, "/usr/bin/fallback")},
		},
		{
			name:   "a test guarding an exec falls through when false",
			script: "test -x /custom/start && exec /custom/start \"$@\"\nexec /usr/bin/server \"$@\"\n",
			args:   []string{"-p", "1"},
			want:   []Command{cmd(1, true, "/custom/start", "-p", "1"), cmd(2, true, "/usr/bin/server", "-p", "1")},
		},
		{
			name:   "a pipeline ends with its last element",
			script: "/usr/bin/server 2>&1 | tee /var/log/server.log\n",
			want:   []Command{cmd(1, false, "tee", "/var/log/server.log")},
		},
		{
			name:   "background jobs followed by wait",
			script: "trap 'kill 0' TERM\n/usr/bin/server --port 1 &\n/usr/bin/sidecar &\nwait\nexit $?\n",
			want: []Command{trapped(background(cmd(2, false, "/usr/bin/server", "--port", "1")), 1),
				trapped(background(cmd(3, false, "/usr/bin/sidecar")), 1)},
		},
		{
			name:   "wait for a job after a foreground program",
			script: "/bin/ollama serve &\npid=$!\nsleep 5\nollama pull \"${MODEL:-llama3}\"\nwait $pid\n",
			want:   []Command{background(cmd(1, false, "/bin/ollama", "serve"))},
		},
		{
			name:   "a variable set only on one branch keeps both ways",
			script: "if [ -e /dev/nvidia0 ]; then\n  :\nelse\n  SERVER=/usr/bin/cpu-server\nfi\nexec \"${SERVER:-/usr/bin/server}\"\n",
			want:   []Command{cmd(6, true, "/usr/bin/server"), cmd(6, true, "/usr/bin/cpu-server")},
		},
		{
			name:   "a command that expands to no words runs nothing",
			script: "EMPTY=\n/usr/bin/server\n$EMPTY\n",
			want:   []Command{cmd(2, false, "/usr/bin/server")},
		},
		{
			name:   "command -v looks a program up and runs nothing",
			script: "/usr/bin/server\ncommand -v python3 >/dev/null\n",
			want:   []Command{cmd(1, false, "/usr/bin/server")},
		},
		{
			name:   "command runs the program after it",
			script: "command /usr/bin/server --port 1\n",
			want:   []Command{cmd(1, false, "/usr/bin/server", "--port", "1")},
		},
		{
			name:   "busybox without an applet",
			script: "exec busybox\n",
			want:   []Command{cmd(1, true, "busybox")},
		},
		{
			name:   "a shell given only options runs as itself",
			script: "exec sh -x\n",
			want:   []Command{cmd(1, true, "sh", "-x")},
		},
		{
			name:   "sh -c without a script runs the shell",
			script: "exec sh -c\n",
			want:   []Command{cmd(1, true, "sh", "-c")},
		},
		{
			name:       "a wrapper given only options",
			script:     "exec nice -n 5\n",
			unresolved: []string{"line 1: nice is given no program to run"},
		},
		{
			name:   "gosu with a user and a program",
			script: "exec gosu app /usr/bin/server\n",
			want:   []Command{switched(cmd(1, true, "/usr/bin/server"), Switch{Wrapper: "gosu", Line: 1, User: "app"})},
		},
		{
			name:   "a program's own -v is an argument",
			script: "/usr/bin/server -v\n",
			want:   []Command{cmd(1, false, "/usr/bin/server", "-v")},
		},
		{
			name:       "command without a program",
			script:     "/usr/bin/server\ncommand\n",
			unresolved: []string{"line 2: command is given no program to run"},
		},
		{
			name:   "an if whose test runs no program keeps the last program when false",
			script: "/usr/bin/server\nif [ -e /x ]; then exec /usr/bin/other; fi\n",
			want:   []Command{after(cmd(1, false, "/usr/bin/server"), 2, "[", "-e", "/x", "]"), cmd(2, true, "/usr/bin/other")},
		},
		{
			name:   "case clauses end at ;; and go on at ;&",
			script: "case \"$1\" in\n  a) X=/usr/bin/a ;;\n  b) X=/usr/bin/b ;&\n  c) Y=--c ;;\nesac\nexec \"${X:-/usr/bin/default}\" ${Y-}\n",
			want: []Command{cmd(6, true, "/usr/bin/a"), cmd(6, true, "/usr/bin/b", "--c"),
				cmd(6, true, "/usr/bin/default", "--c"), cmd(6, true, "/usr/bin/default")},
		},
		{
			name:       "source without a file",
			script:     "source\nexec /usr/bin/server\n",
			want:       []Command{cmd(2, true, "/usr/bin/server")},
			unresolved: []string{"line 1: the sourced file named nowhere is not followed"},
		},
		{
			name:   "declare -x exports",
			script: "declare -x MODEL=m\nPORT=1\nexport PORT\nexec sh -c 'exec /usr/bin/server --model=$MODEL --port=$PORT'\n",
			want:   []Command{cmd(4, true, "/usr/bin/server", "--model=m", "--port=1")},
		},
		{
			name:   "exit 0 ends on the last program",
			script: "/usr/bin/server\nexit 0\n",
			want:   []Command{cmd(1, false, "/usr/bin/server")},
		},
		{
			name:   "exit alone ends on the last program",
			script: "/usr/bin/server\nexit\n",
			want:   []Command{cmd(1, false, "/usr/bin/server")},
		},
		{
			name:   "exit 1 ends on an error, not on a program",
			script: "/usr/bin/server\nexit 1\n",
		},
		{
			name:   "shift 0 shifts nothing",
			script: "shift 0\nexec /usr/bin/server \"$@\"\n",
			args:   []string{"a", "b"},
			want:   []Command{cmd(2, true, "/usr/bin/server", "a", "b")},
		},
		{
			name:   "shift of every argument leaves none",
			script: "shift 2\nexec /usr/bin/server \"$@\"\n",
			args:   []string{"a", "b"},
			want:   []Command{cmd(2, true, "/usr/bin/server")},
		},
		{
			name:   "local X starts unset",
			script: "X=/usr/bin/outer\nstart() {\n  local X\n  exec \"${X-/usr/bin/server}\"\n}\nstart\n",
			want:   []Command{cmd(4, true, "/usr/bin/server")},
		},
		{
			name:   "wait without jobs leaves the last program",
			script: "/usr/bin/server\nwait\n",
			want:   []Command{cmd(1, false, "/usr/bin/server")},
		},
		{
			name:   "a job without wait until a foreground program runs",
			script: "/usr/bin/sidecar &\n/usr/bin/server\n",
			want:   []Command{cmd(2, false, "/usr/bin/server")},
		},
		{
			name:   "exit after a program takes the program",
			script: "python3 serve.py\nstatus=$?\necho \"exited $status\"\nexit $status\n",
			want:   []Command{after(cmd(1, false, "python3", "serve.py"), 3, "echo", `"exited $status"`)},
		},
		{
			name:   "a builtin after the last program is what the script goes on to",
			script: "vllm serve m\necho done\n",
			want:   []Command{after(cmd(1, false, "vllm", "serve", "m"), 2, "echo", "done")},
		},
		{
			name:   "exit right after the last program ends on it",
			script: "vllm serve m\nexit\n",
			want:   []Command{cmd(1, false, "vllm", "serve", "m")},
		},
		{
			name:   "a program after the builtin is the one the script ends on",
			script: "python3 prepare.py\necho prepared\nexec vllm serve m\n",
			want:   []Command{cmd(3, true, "vllm", "serve", "m")},
		},
		{
			name:   "a builtin after a background job does not follow a foreground program",
			script: "vllm serve m &\necho started\nwait\n",
			want:   []Command{background(cmd(1, false, "vllm", "serve", "m"))},
		},
		{
			name:   "redirect-only exec and a subshell exec",
			script: "exec >/var/log/out 2>&1\n( exec /usr/bin/server )\n",
			want:   []Command{cmd(2, true, "/usr/bin/server")},
		},
		{
			name:       "a sourced file is not followed",
			script:     ". /etc/profile.d/env.sh\nsource ./more.sh\nexec /usr/bin/server\n",
			want:       []Command{cmd(3, true, "/usr/bin/server")},
			unresolved: []string{"line 1: the sourced file /etc/profile.d/env.sh is not followed", "line 2: the sourced file ./more.sh is not followed"},
		},
		{
			name:   "set -- and shift change the arguments",
			script: "set -- /usr/bin/server \"$@\"\nshift 2\nset -eu -o pipefail\nexec \"$0\" \"$@\"\n",
			args:   []string{"a", "b", "c"},
			want:   []Command{cmd(4, true, "entrypoint.sh", "b", "c")},
		},
		{
			name:   "eval runs its string in the same shell",
			script: "CMD=\"/usr/bin/server --port $PORT\"\neval \"exec $CMD\"\n",
			lookup: env("PORT", "1"),
			want:   []Command{cmd(2, true, "/usr/bin/server", "--port", "1")},
		},
		{
			name:   "field splitting, quoting and special parameters",
			script: "OPTS=\"--a 1  --b\"\nexec /bin/run $OPTS \"$OPTS\" \"$*\" $# \"$0\" ${10} '$HOME' \\$X \"\" $'t\\tab' ${#OPTS} ${OPTS#--a } ${OPTS%%--*}x\n",
			args:   []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "ten"},
			want: []Command{cmd(2, true, "/bin/run", "--a", "1", "--b", "--a 1  --b", "1 2 3 4 5 6 7 8 9 ten", "10",
				"entrypoint.sh", "ten", "$HOME", "$X", "", "t\tab", "10", "1", "--b", "x")},
		},
		{
			name:   "unset hides the environment",
			script: "unset SERVER\nexec ${SERVER-/usr/bin/default}\n",
			lookup: env("SERVER", "/usr/bin/other"),
			want:   []Command{cmd(2, true, "/usr/bin/default")},
		},
		{
			name:   "a for loop's variable is only known at run time",
			script: "for bin in /opt/a /opt/b; do\n  [ -x \"$bin\" ] && break\ndone\nexec \"$bin\"\n",
			unresolved: []string{
				"line 4: $bin is set by a for loop",
			},
		},
		{
			name:   "exec's own options come before the program",
			script: "exec -c -a server -- /usr/bin/server --port 1\n",
			want:   []Command{cmd(1, true, "/usr/bin/server", "--port", "1")},
		},
		{
			name:   "a shell's long options and -o come before -c",
			script: "exec bash --rcfile /etc/rc --init-file /etc/init -o pipefail -c 'exec /usr/bin/server \"$@\"' server --port 1\n",
			want:   []Command{cmd(1, true, "/usr/bin/server", "--port", "1")},
		},
		{
			name:   "sh -c -- ends the shell's options",
			script: "exec sh -c -- 'exec /usr/bin/server'\n",
			want:   []Command{cmd(1, true, "/usr/bin/server")},
		},
		{
			name:   "env -u takes a name, and the program may follow the options",
			script: "exec env -u DEBUG PORT=1 /usr/bin/server --port 1\n",
			want:   []Command{cmd(1, true, "/usr/bin/server", "--port", "1")},
		},
		{
			name:   "env -- then the program",
			script: "exec env -- /usr/bin/server\n",
			want:   []Command{cmd(1, true, "/usr/bin/server")},
		},
		{
			name:   "env -S splits its string into the program and its first words",
			script: "exec env -S '/usr/bin/server --port 1' --extra\n",
			want:   []Command{cmd(1, true, "/usr/bin/server", "--port", "1", "--extra")},
		},
		{
			name:   "env --split-string",
			script: "exec env --split-string '/usr/bin/server --port 1'\n",
			want:   []Command{cmd(1, true, "/usr/bin/server", "--port", "1")},
		},
		{
			name:   "env --split-string=STRING is --split-string STRING",
			script: "exec env --split-string='/usr/bin/server --port 1' --extra\n",
			want:   []Command{cmd(1, true, "/usr/bin/server", "--port", "1", "--extra")},
		},
		{
			name:       "env --split-string= with a string known only at run time",
			script:     "exec env --split-string=\"$SERVER_CMD\"\n",
			unresolved: []string{"line 1: $SERVER_CMD is not set"},
		},
		{
			name:   "a shebang's env -S joined to its string",
			script: "exec /usr/bin/env '-S python3 -u' /app/serve.py\n",
			want:   []Command{cmd(1, true, "python3", "-u", "/app/serve.py")},
		},
		{
			name:       "env -S with a string known only at run time",
			script:     "exec env -S \"$SERVER_CMD\"\n",
			unresolved: []string{"line 1: $SERVER_CMD is not set"},
		},
		{
			name:       "env -S with nothing after it",
			script:     "exec env -S\n",
			unresolved: []string{"line 1: env is given no program to run"},
		},
		{
			name:   "a wrapper given the script's arguments",
			script: "exec gosu app \"$@\"\n",
			args:   []string{"/usr/bin/server", "--port", "1"},
			want:   []Command{switched(cmd(1, true, "/usr/bin/server", "--port", "1"), Switch{Wrapper: "gosu", Line: 1, User: "app"})},
		},
		{
			name:       "a wrapper given the script's arguments, and there are none",
			script:     "exec gosu app \"$@\"\n",
			unresolved: []string{"line 1: runs its arguments, and there are none"},
		},
		{
			name:   "set with an option before the new arguments",
			script: "set +e /usr/bin/server --port 1\nexec \"$@\"\n",
			want:   []Command{cmd(2, true, "/usr/bin/server", "--port", "1")},
		},
		{
			name:   "set ignores a lone +",
			script: "set + /usr/bin/server --port 1\nexec \"$@\"\n",
			args:   []string{"a"},
			want:   []Command{cmd(2, true, "/usr/bin/server", "--port", "1")},
		},
		{
			name:       "read -p takes a prompt, and the variable is read at run time",
			script:     "read -r -p 'server? ' SERVER\nexec \"$SERVER\"\n",
			unresolved: []string{"line 2: $SERVER is read at run time"},
		},
		{
			name:   "+= appends to the value",
			script: "SERVER=/opt/bin\nSERVER+=/server\nexec \"$SERVER\" --port 1\n",
			want:   []Command{cmd(3, true, "/opt/bin/server", "--port", "1")},
		},
		{
			name:       "+= to a value read at run time",
			script:     "read -r DIR\nDIR+=/server\nexec \"$DIR\"\n",
			unresolved: []string{"line 3: $DIR is read at run time"},
		},
		{
			name:   "time runs its command",
			script: "time /usr/bin/server --port 1\n",
			want:   []Command{cmd(1, false, "/usr/bin/server", "--port", "1")},
		},
		{
			name:   "$9 is the ninth argument",
			script: "exec \"$9\" \"$1\"\n",
			args:   []string{"1", "2", "3", "4", "5", "6", "7", "8", "/usr/bin/server"},
			want:   []Command{cmd(1, true, "/usr/bin/server", "1")},
		},
		{
			name:   "${X:+word} gives the word only when X is set",
			script: "exec /usr/bin/server ${DEBUG:+--debug} ${QUIET:+--quiet}\n",
			lookup: env("DEBUG", "1"),
			want:   []Command{cmd(1, true, "/usr/bin/server", "--debug")},
		},
		{
			name:   "${@:-default} without arguments runs the default",
			script: "exec \"${@:-/usr/bin/server}\"\n",
			want:   []Command{cmd(1, true, "/usr/bin/server")},
		},
		{
			name:   "${@:-default} with arguments runs them",
			script: "exec \"${@:-/usr/bin/server}\"\n",
			args:   []string{"python3", "app.py"},
			want:   []Command{cmd(1, true, "python3", "app.py")},
		},
		{
			name:   "${@:+word} without arguments is nothing",
			script: "exec /usr/bin/server ${@:+--extra}\n",
			want:   []Command{cmd(1, true, "/usr/bin/server")},
		},
		{
			name:   "${@:+word} with arguments is the word",
			script: "exec /usr/bin/server ${@:+--extra}\n",
			args:   []string{"x"},
			want:   []Command{cmd(1, true, "/usr/bin/server", "--extra")},
		},
		{
			name:   "\"$@\" joined to text ends its last argument",
			script: "exec /usr/bin/server \"$@\"=1\n",
			args:   []string{"--a", "--b"},
			want:   []Command{cmd(1, true, "/usr/bin/server", "--a", "--b=1")},
		},
		{
			name:   "an empty variable is unset for :-, := and :+ but not for -, = and +",
			script: "A=\nB=\nC=\nexec /usr/bin/server \"${A:-a}\" \"${A-b}\" \"${B:=c}\" \"$B\" \"${C=d}\" \"${A:+e}\" \"${A+f}\"\n",
			want:   []Command{cmd(4, true, "/usr/bin/server", "a", "", "c", "c", "", "", "f")},
		},
		{
			name:       "${X:?} of an empty variable fails",
			script:     "A=\nexec \"${A:?}\"\n",
			unresolved: []string{"line 2: $A is not set"},
		},
		{
			name:   "${X?} of an empty variable is empty",
			script: "A=\nexec /usr/bin/server \"${A?}\"\n",
			want:   []Command{cmd(2, true, "/usr/bin/server", "")},
		},
		{
			name:   "inside double quotes a backslash escapes only $ ` \" \\ and a newline",
			script: "exec /usr/bin/server \"\\$HOME\" \"a\\x\" \"\\`\" \"\\\\\"\n",
			want:   []Command{cmd(1, true, "/usr/bin/server", "$HOME", `a\x`, "`", `\`)},
		},
		{
			name:   "a backslash at the end of the script stays",
			script: "exec /usr/bin/server a\\",
			want:   []Command{cmd(1, true, "/usr/bin/server", `a\`)},
		},
		{
			name:   "unquoted $* is one word per argument, each split",
			script: "exec /usr/bin/server --args=$* --end\n",
			args:   []string{"a", "b c"},
			want:   []Command{cmd(1, true, "/usr/bin/server", "--args=a", "b", "c", "--end")},
		},
	}
	for _, c := range cases {
		got, err := Follow([]byte(c.script), "entrypoint.sh", c.args, c.lookup)
		checkResult(t, c, got, err)
	}
}

// TestIsShell: busybox counts as a shell, its sh applet being one.
// TestFollowTermTrap: the trap on TERM in effect when the script waits
// for its jobs.
func TestFollowTermTrap(t *testing.T) {
	server := background(cmd(3, false, "/usr/bin/server"))
	cases := []followCase{
		{
			name:   "a trap set after the job, before the wait",
			script: "#!/bin/sh\n\n/usr/bin/server &\ntrap 'kill -TERM $!' SIGTERM INT\nwait\n",
			want:   []Command{trapped(server, 4)},
		},
		{
			name:   "a trap on another signal",
			script: "#!/bin/sh\ntrap 'echo bye' INT EXIT\n/usr/bin/server &\nwait\n",
			want:   []Command{server},
		},
		{
			name:   "a trap put back to the default",
			script: "#!/bin/sh\ntrap 'kill 0' TERM\n/usr/bin/server &\ntrap - TERM\nwait\n",
			want:   []Command{server},
		},
		{
			name:   "a trap put back by a number first",
			script: "#!/bin/sh\ntrap 'kill 0' 15\n/usr/bin/server &\ntrap 15\nwait\n",
			want:   []Command{server},
		},
		{
			name:   "a signal ignored",
			script: "#!/bin/sh\ntrap 'kill 0' TERM\n/usr/bin/server &\ntrap '' TERM\nwait\n",
			want:   []Command{server},
		},
		{
			name:   "a listing changes nothing",
			script: "#!/bin/bash\ntrap -- 'kill 0' term\n/usr/bin/server &\ntrap -p\nwait\n",
			want:   []Command{trapped(server, 2)},
		},
		{
			name:   "an action known at run time",
			script: "#!/bin/sh\ntrap \"$ON_TERM\" TERM\n/usr/bin/server &\nwait\n",
			want:   []Command{trapped(server, 2)},
		},
		{
			name:   "a foreground command does not carry the trap",
			script: "#!/bin/sh\ntrap 'kill 0' TERM\n/usr/bin/server\n",
			want:   []Command{cmd(3, false, "/usr/bin/server")},
		},
	}
	for _, c := range cases {
		got, err := Follow([]byte(c.script), "entrypoint.sh", c.args, c.lookup)
		checkResult(t, c, got, err)
	}
}

func TestIsShell(t *testing.T) {
	for base, want := range map[string]bool{"sh": true, "bash": true, "dash": true, "busybox": true, "python3": false, "": false} {
		if got := IsShell(base); got != want {
			t.Errorf("IsShell(%q) = %v, want %v", base, got, want)
		}
	}
}

func TestFollowCommandString(t *testing.T) {
	cases := []struct {
		followCase
		argv0 string
	}{
		{followCase: followCase{
			name:   "exec in the string",
			script: "exec /usr/bin/server --port=9000",
			want:   []Command{cmd(1, true, "/usr/bin/server", "--port=9000")},
		}, argv0: "sh"},
		{followCase: followCase{
			name:   "NAME and ARGS are $0 and the positional parameters",
			script: `exec /usr/bin/server --name="$0" "$@"`,
			args:   []string{"--port=9000"},
			want:   []Command{cmd(1, true, "/usr/bin/server", "--name=triton", "--port=9000")},
		}, argv0: "triton"},
		{followCase: followCase{
			name:   "a bazel-bin path",
			script: "/usr/local/bin/bazel-bin/tensorflow_serving/model_servers/tensorflow_model_server --port=9000 --model_name=m --model_base_path=/models/m",
			want: []Command{cmd(1, false, "/usr/local/bin/bazel-bin/tensorflow_serving/model_servers/tensorflow_model_server",
				"--port=9000", "--model_name=m", "--model_base_path=/models/m")},
		}, argv0: "sh"},
		{followCase: followCase{
			name:   "a shell form CMD with a variable",
			script: "python3 -m http.server ${PORT}",
			lookup: env("PORT", "8080"),
			want:   []Command{cmd(1, false, "python3", "-m", "http.server", "8080")},
		}, argv0: "/bin/sh"},
	}
	for _, c := range cases {
		got, err := FollowCommandString(c.script, c.argv0, c.args, c.lookup)
		checkResult(t, c.followCase, got, err)
	}
}

func TestFollowErrors(t *testing.T) {
	_, err := Follow([]byte("#!/bin/sh\nexec \"/usr/bin/server\n"), "", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "2:6") || strings.Contains(err.Error(), "\n") {
		t.Errorf("unterminated quote: %v, want a one-line error at 2:6", err)
	}
	if _, err := FollowCommandString("if true; then", "sh", nil, nil); err == nil {
		t.Error("an unfinished if parses")
	}
	exact := "#!/bin/sh\nexec /usr/bin/server\n#"
	exact += strings.Repeat("x", MaxScriptBytes-len(exact))
	if result, err := Follow([]byte(exact), "", nil, nil); err != nil || len(result.Commands) != 1 {
		t.Errorf("a script of exactly %d bytes: %+v, %v, want it followed", MaxScriptBytes, result, err)
	}
	big := []byte("#!/bin/sh\n" + strings.Repeat("# padding\n", (65<<10)/10) + "exec /usr/bin/server\n")
	if _, err := Follow(big, "", nil, nil); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("a 65 KiB script: %v, want an error over the limit", err)
	}
}

func TestFollowBounds(t *testing.T) {
	var deep strings.Builder
	deep.WriteString(strings.Repeat("{ ", 100) + "exec /usr/bin/server" + strings.Repeat("; }", 100))

	var branches strings.Builder
	for i := range 40 {
		fmt.Fprintf(&branches, "if [ -e /x%d ]; then A%d=1; fi\n", i, i)
	}
	branches.WriteString("exec /usr/bin/server\n")

	var clauses strings.Builder
	clauses.WriteString("case \"$1\" in\n")
	for i := range 40 {
		fmt.Fprintf(&clauses, "  %d) exec /usr/bin/server%d ;;\n", i, i)
	}
	clauses.WriteString("esac\n")
	var same strings.Builder
	for i := range 40 {
		fmt.Fprintf(&same, "if [ -e /x%d ]; then echo found; fi\n", i)
	}
	same.WriteString("exec /usr/bin/server\n")

	var alike strings.Builder
	for i := range 40 {
		fmt.Fprintf(&alike, "if [ -e /x%d ]; then A=1; else A=1; fi\n", i)
	}
	alike.WriteString("exec /usr/bin/server\n")

	// 32 ways on, each with 69 variables, through 1000 statements.
	var wide strings.Builder
	for i := range 64 {
		fmt.Fprintf(&wide, "A%d=1 ", i)
	}
	wide.WriteString("\n")
	for i := range 5 {
		fmt.Fprintf(&wide, "if [ -e /x%d ]; then B%d=1; fi\n", i, i)
	}
	wide.WriteString(strings.Repeat(":\n", 1000) + "exec /usr/bin/server\n")

	var exactClauses strings.Builder
	exactClauses.WriteString("case \"$1\" in\n")
	for i := range maxCommands {
		fmt.Fprintf(&exactClauses, "  %d) exec /usr/bin/server%d ;;\n", i, i)
	}
	exactClauses.WriteString("esac\n")
	var firstClauses []Command
	for i := range maxCommands {
		firstClauses = append(firstClauses, cmd(i+2, true, fmt.Sprintf("/usr/bin/server%d", i)))
	}

	var fanout strings.Builder
	fanout.WriteString("f0() { /bin/true; }\n")
	for i := 1; i <= 7; i++ {
		fmt.Fprintf(&fanout, "f%d() { %s}\n", i, strings.Repeat(fmt.Sprintf("f%d; ", i-1), 10))
	}
	fanout.WriteString("f7\n")

	words := strings.TrimSpace(strings.Repeat("w ", maxWords-2)) // after exec and the program
	defaults := strings.Repeat("${A:-", maxNesting)
	closing := strings.Repeat("}", maxNesting)
	doubled := "X=0123456789abcdef\n" + strings.Repeat("X=$X$X\n", 12) + "exec /usr/bin/server $X\n"

	trims := doubled[:strings.LastIndex(doubled, "exec")] + strings.Repeat("Y=${X#?}\n", 40) + "exec /usr/bin/server\n"

	nested := func(shells int) string {
		script := "exec /usr/bin/server"
		for range shells {
			script = "exec sh -c '" + strings.ReplaceAll(script, "'", `'\''`) + "'"
		}
		return script + "\n"
	}

	calls := func(depth int) string {
		var script strings.Builder
		for i := 1; i < depth; i++ {
			fmt.Fprintf(&script, "f%d() { f%d; }\n", i, i+1)
		}
		fmt.Fprintf(&script, "f%d() { exec /usr/bin/server; }\nf1\n", depth)
		return script.String()
	}

	cases := []followCase{
		{
			name:   "function calls nested as deep as the limit",
			script: calls(maxCallDepth),
			want:   []Command{cmd(8, true, "/usr/bin/server")},
		},
		{
			name:       "function calls nested one deeper than the limit",
			script:     calls(maxCallDepth + 1),
			unresolved: []string{"line 8: function calls nest deeper than 8; the inner ones are not followed"},
		},
		{
			name:   "sh -c nested as deep as the limit",
			script: nested(maxShellDepth),
			want:   []Command{cmd(1, true, "/usr/bin/server")},
		},
		{
			name:       "sh -c nested one deeper than the limit",
			script:     nested(maxShellDepth + 1),
			unresolved: []string{"line 1: sh -c nests deeper than 4 shells; the inner ones are not followed"},
		},
		{
			name:   "a pattern of exactly the most bytes",
			script: "X=/usr/bin/server\nexec ${X#*" + strings.Repeat("x", maxPatternBytes-1) + "}\n",
			want:   []Command{cmd(2, true, "/usr/bin/server")},
		},
		{
			name:       "matching a pattern costs the value's length times the pattern's",
			script:     trims,
			unresolved: []string{"line 45: the script takes more than 1048576 steps to follow; the rest is not followed"},
		},
		{
			name:   "a command of exactly the most words",
			script: "W='" + words + "'\nexec /usr/bin/server $W\n",
			want:   []Command{cmd(2, true, append([]string{"/usr/bin/server"}, strings.Fields(words)...)...)},
		},
		{
			name:       "one word of more than the most words",
			script:     "W='" + strings.Repeat("w ", maxWords+1) + "'\nexec $W\n",
			unresolved: []string{"line 2: a word expands to more than 1024 words"},
		},
		{
			// The last field is ended by the word's end, not by a space.
			name:       "one word whose last field is one more than the most words",
			script:     "W='" + strings.TrimSpace(strings.Repeat("w ", maxWords+1)) + "'\nexec $W\n",
			unresolved: []string{"line 2: a word expands to more than 1024 words"},
		},
		{
			name:   "a word nested one less than the limit",
			script: "exec " + defaults[5:] + "/usr/bin/server" + closing[1:] + "\n",
			want:   []Command{cmd(1, true, "/usr/bin/server")},
		},
		{
			name:       "a word nested as deep as the limit",
			script:     "exec " + defaults + "/usr/bin/server" + closing + "\n",
			unresolved: []string{"line 1: a word nests deeper than 64 expansions"},
		},
		{
			name:   "expansions side by side do not nest",
			script: "exec /usr/bin/server " + strings.Repeat("${A:-x}", 2*maxNesting) + "\n",
			want:   []Command{cmd(1, true, "/usr/bin/server", strings.Repeat("x", 2*maxNesting))},
		},
		{
			name:   "a word of exactly the most bytes",
			script: doubled,
			want:   []Command{cmd(14, true, "/usr/bin/server", strings.Repeat("0123456789abcdef", maxWordBytes/16))},
		},
		{
			name:       "nesting",
			script:     deep.String(),
			unresolved: []string{"line 1: statements nest deeper than 64; the inner ones are not followed"},
		},
		{
			name:   "branches that change nothing are one way on",
			script: same.String(),
			want:   []Command{cmd(41, true, "/usr/bin/server")},
		},
		{
			name:   "branches that set the same are one way on",
			script: alike.String(),
			want:   []Command{cmd(41, true, "/usr/bin/server")},
		},
		{
			name:       "telling ways apart costs more the more variables they hold",
			script:     wide.String(),
			unresolved: []string{"line 679: the script takes more than 1048576 steps to follow; the rest is not followed"},
		},
		{
			name:       "many branches",
			script:     branches.String(),
			want:       []Command{cmd(41, true, "/usr/bin/server")},
			unresolved: []string{"line 6: the script branches more than 32 ways; the rest are not followed"},
		},
		{
			name:   "exactly the most candidates",
			script: exactClauses.String(),
			want:   firstClauses,
		},
		{
			name:   "statements nested as deep as the limit",
			script: strings.Repeat("{ ", maxNesting) + "exec /usr/bin/server" + strings.Repeat("; }", maxNesting),
			want:   []Command{cmd(1, true, "/usr/bin/server")},
		},
		{
			name:       "statements nested one deeper than the limit",
			script:     strings.Repeat("{ ", maxNesting+1) + "exec /usr/bin/server" + strings.Repeat("; }", maxNesting+1),
			unresolved: []string{"line 1: statements nest deeper than 64; the inner ones are not followed"},
		},
		{
			name:       "many candidates",
			script:     clauses.String(),
			want:       firstClauses,
			unresolved: []string{"line 34: the script may end in more than 32 commands; the rest are left out"},
		},
		{
			name:       "recursion",
			script:     "f() { f \"$@\"; }\nf\n",
			unresolved: []string{"line 1: function calls nest deeper than 8; the inner ones are not followed"},
		},
		{
			name:       "doubling a variable",
			script:     "X=0123456789abcdef\n" + strings.Repeat("X=$X$X\n", 20) + "exec $X\n",
			unresolved: []string{"line 22: a word expands to more than 65536 bytes"},
		},
		{
			name:       "work",
			script:     fanout.String(),
			want:       []Command{cmd(1, false, "/bin/true")},
			unresolved: []string{"line 1: the script takes more than 1048576 steps to follow; the rest is not followed"},
		},
	}
	for _, c := range cases {
		start := cpuTime()
		got, err := Follow([]byte(c.script), "", []string{"1"}, nil)
		checkResult(t, c, got, err)
		if used := cpuTime() - start; used > 5*time.Second {
			t.Errorf("%s: took %v of CPU time", c.name, used)
		}
	}
}

// TestReport: reasons are ordered by line, a reason of no line has no
// line number, and a note over the limit still says more are left out.
func TestReport(t *testing.T) {
	f := &follower{}
	for i := range maxUnresolved + 8 {
		f.note(because(i+1, "note %d", i+1))
	}
	var notes []string
	for i := range maxUnresolved {
		notes = append(notes, fmt.Sprintf("line %d: note %d", i+1, i+1))
	}
	cases := []struct {
		name    string
		reasons []reason
		want    []string
	}{
		{"by line, once each", []reason{{2, "b"}, {1, "a"}, {2, "b"}}, []string{"line 1: a", "line 2: b"}},
		{"no line", []reason{{0, "everywhere"}, {3, "here"}}, []string{"everywhere", "line 3: here"}},
		{"notes over the limit", f.notes, append(notes, "more reasons are left out")},
		{"distinct reasons over the limit", distinct(f.notes), append(notes, "more reasons are left out")},
	}
	for _, c := range cases {
		if got := report(c.reasons); !slices.Equal(got, c.want) {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

// TestFollowTainted: a command says what the script did before it that
// was not followed, up to the limit.
func TestFollowTainted(t *testing.T) {
	cases := []struct {
		script string
		want   int
	}{
		{". /etc/env\nexec /usr/bin/server\n", 1},
		{strings.Repeat(". /etc/env\n", maxUnresolved+8) + "exec /usr/bin/server\n", maxUnresolved},
	}
	for _, c := range cases {
		result, err := Follow([]byte(c.script), "/start.sh", nil, nil)
		if err != nil || len(result.Commands) != 1 {
			t.Fatalf("%q: %v %+v", c.script, err, result)
		}
		if got := result.Commands[0].Tainted; len(got) != c.want {
			t.Errorf("%q: tainted by %q, want %d reasons", c.script, got, c.want)
		}
	}
}

// TestFollowDirAndEnv: a command carries the directory cd moved to and
// the variables the script exported, so what it loads resolves as the
// shell would.
func TestFollowDirAndEnv(t *testing.T) {
	cases := []struct {
		script, dir, unknown string
		env                  []string
	}{
		{"#!/bin/sh\ncd /srv/app\nexport PYTHONPATH=/srv/lib\nexec python main.py\n", "/srv/app", "", []string{"PYTHONPATH=/srv/lib"}},
		{"#!/bin/sh\ncd /srv && cd app\nexec python main.py\n", "/srv/app", "", nil},
		{"#!/bin/sh\ncd src\nMODE=x exec python main.py\n", "src", "", []string{"MODE=x"}},
		{"#!/bin/sh\ncd \"$APP_HOME\"\nexec python main.py\n", "", "$APP_HOME", nil},
		{"#!/bin/sh\nLOCAL=1\nexec python main.py\n", "", "", nil},
		{"#!/bin/sh\ncd -P /srv/app\nexec python main.py\n", "/srv/app", "", nil},
		{"#!/bin/sh\ncd\nexec python main.py\n", "", "cd with no directory moves to $HOME", nil},
		{"#!/bin/sh\ncd /srv\ncd -\nexec python main.py\n", "", "cd - moves to the previous directory", nil},
	}
	for _, c := range cases {
		result, err := Follow([]byte(c.script), "/start.sh", nil, func(string) (string, bool) { return "", false })
		if err != nil || len(result.Commands) != 1 {
			t.Fatalf("%q: %v %+v", c.script, err, result)
		}
		command := result.Commands[0]
		if command.Dir != c.dir || !strings.Contains(command.DirUnknown, c.unknown) || (c.unknown == "") != (command.DirUnknown == "") ||
			strings.Join(command.Env, " ") != strings.Join(c.env, " ") {
			t.Errorf("%q: dir %q (%q) env %q, want %q (%q) %q", c.script, command.Dir, command.DirUnknown, command.Env, c.dir, c.unknown, c.env)
		}
	}
}

// TestFollowArgvEnv names the environment variable a word of the final
// command is the whole value of, and no other.
func TestFollowArgvEnv(t *testing.T) {
	cases := []struct {
		script string
		want   []string
	}{
		{"#!/bin/sh\nexec tgi --model-id \"${MODEL_ID}\" --port 80\n", []string{"", "", "MODEL_ID", "", ""}},
		{"#!/bin/sh\nexec tgi --model-id $MODEL_ID\n", []string{"", "", "MODEL_ID"}},
		{"#!/bin/sh\nexec tgi --model-id \"${MODEL_ID:-gpt2}\" --host \"${HOST:-::}\"\n", []string{"", "", "MODEL_ID", "", ""}},
		// Part of a word, a value the script sets, and a default taken are
		// not the environment's.
		{"#!/bin/sh\nexec tgi --model-id=\"$MODEL_ID\"\n", nil},
		{"#!/bin/sh\nMODEL_ID=org/other\nexec tgi --model-id \"$MODEL_ID\"\n", nil},
		{"#!/bin/sh\nexec tgi --host \"${HOST:-::}\"\n", nil},
		{"#!/bin/sh\nexec tgi --model-id \"${MODEL_ID%/*}\"\n", nil},
	}
	for _, c := range cases {
		result, err := Follow([]byte(c.script), "/start.sh", nil, env("MODEL_ID", "org/model"))
		if err != nil || len(result.Commands) != 1 {
			t.Fatalf("%q: %v %+v", c.script, err, result)
		}
		if got := result.Commands[0].ArgvEnv; !slices.Equal(got, c.want) {
			t.Errorf("%q: ArgvEnv %q, want %q", c.script, got, c.want)
		}
	}
}

// TestFollowKeep follows the programs a script starts before the one it
// ends on.
func TestFollowKeep(t *testing.T) {
	keep := func(argv []string) bool { return argv[0] == "torchserve" || strings.HasPrefix(argv[0], "python") }
	var warm []Command
	for i := range maxRan {
		warm = append(warm, cmd(i+3, false, "python3", "warm.py"))
	}
	cases := []followCase{
		{
			name: "TorchServe's dockerd-entrypoint.sh",
			script: "#!/bin/bash\nset -e\nif [[ \"$1\" = \"serve\" ]]; then\n    shift 1\n    torchserve --start --ts-config /home/model-server/config.properties\n" +
				"else\n    eval \"$@\"\nfi\n# prevent docker exit\ntail -f /dev/null\n",
			args: []string{"serve"},
			want: []Command{
				before(cmd(10, false, "tail", "-f", "/dev/null"), cmd(5, false, "torchserve", "--start", "--ts-config", "/home/model-server/config.properties")),
				cmd(10, false, "tail", "-f", "/dev/null"),
			},
		},
		{
			name:   "a server in the background, then sleep",
			script: "mkdir -p /tmp/x\npython -m server --port 8080 &\nsleep infinity\n",
			want:   []Command{before(cmd(3, false, "sleep", "infinity"), background(cmd(2, false, "python", "-m", "server", "--port", "8080")))},
		},
		{
			name:   "a condition's program is a test, not a start",
			script: "if python3 -c 'import torch'; then echo ok; fi\nexec /bin/serve\n",
			want:   []Command{cmd(2, true, "/bin/serve")},
		},
		{
			name:   "the left of || may fail and is not kept",
			script: "python3 fetch.py || echo 'no fetch'\npython3 warm.py && exec /bin/serve\n",
			want:   []Command{before(cmd(2, true, "/bin/serve"), cmd(2, false, "python3", "warm.py"))},
		},
		{
			name:   "a nested shell's starts are kept",
			script: "sh -c 'python3 app.py &'\nexec tail -f /dev/null\n",
			want:   []Command{before(cmd(2, true, "tail", "-f", "/dev/null"), background(cmd(1, false, "python3", "app.py")))},
		},
		{
			name:   "the script's starts come before a nested shell's",
			script: "python3 a.py\nexec sh -c 'python3 b.py & exec tail -f /dev/null'\n",
			want: []Command{before(cmd(2, true, "tail", "-f", "/dev/null"),
				cmd(1, false, "python3", "a.py"), background(cmd(2, false, "python3", "b.py")))},
		},
		{
			name:   "at most 16 starts are kept",
			script: "serve() { python3 serve.py; }\nserve\n" + strings.Repeat("python3 warm.py\n", maxRan) + "serve\n",
			want:   []Command{before(cmd(1, false, "python3", "serve.py"), warm[:maxRan-1]...)},
		},
		{
			name:   "a while condition's program is a test, what runs after it a start",
			script: "while ! python3 ready.py; do sleep 1; done\npython3 app.py &\nexec tail -f /dev/null\n",
			want:   []Command{before(cmd(3, true, "tail", "-f", "/dev/null"), background(cmd(2, false, "python3", "app.py")))},
		},
		{
			name:   "wait ends on the job, which is not its own before",
			script: "python3 app.py &\nwait\n",
			want:   []Command{background(cmd(1, false, "python3", "app.py"))},
		},
	}
	for _, c := range cases {
		got, err := FollowWith([]byte(c.script), "entrypoint.sh", c.args, c.lookup, Options{Keep: keep})
		checkResult(t, c, got, err)
	}
}
