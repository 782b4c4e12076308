package rules

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/image/launch"
	"github.com/modellint/modellint/lint/server"
)

// MDL312: a wrapper script starts the server and then runs something
// else, so the server is not the process the runtime signals and watches.

var serverNotForeground = &lint.Rule{
	ID: "MDL312", Name: "server-not-foreground", Severity: lint.Warning,
	Artifact: lint.ArtifactImage, Needs: []lint.Fact{lint.FactImage},
	Doc: lint.Doc{
		Summary: "A wrapper script starts the server and then runs something else: it starts it in the background (&, or a server that daemonizes such as `torchserve --start`) and keeps the container alive with `tail -f /dev/null` or `sleep infinity` or `wait`s for it, or runs it in the foreground but not as its last command (`vllm serve …; echo done`), or as the last command of a script file without exec, or runs without exec, as its last command, the script that starts the server.",
		Why: "The runtime sends SIGTERM on pod deletion and on every rollout to the container's PID 1 and ends the " +
			"container when PID 1 exits. When that process is the wrapper (a shell waiting for the server or for a job, " +
			"or its keep-alive command), the server never gets the SIGTERM: it is killed with SIGKILL after " +
			"terminationGracePeriodSeconds, in-flight requests are cut and nothing is flushed. Worse, when the server " +
			"crashes (out of memory, a model that fails to load) the keep-alive command goes on: the container outlives " +
			"the server, stays Running, is never restarted, and the pod sits not Ready instead of in CrashLoopBackOff " +
			"with the server's exit status and logs; a command after a foreground server ends the container with its own " +
			"exit status, not the server's. The official TorchServe image's dockerd-entrypoint.sh does this " +
			"(`torchserve --start` then `tail -f /dev/null`). Every command of the script that starts a known server or " +
			"an interpreter is followed, in the branches the script may take, and is checked like the command it ends " +
			"on (MDL301-MDL304, MDL320-MDL322). An app an interpreter runs in the foreground before another command " +
			"counts as the server only when that command is a keep-alive: otherwise it may be a setup step. A server that is a " +
			"script file's last command without exec is a note, when the script is PID 1 (the container's command, " +
			"or exec'd by it): neither bash nor dash execs the last command of a script file (dash and BusyBox ash exec only " +
			"a -c string's, which is not reported), so the shell stays PID 1 with the server as its child, and the kernel does " +
			"not deliver PID 1 a SIGTERM it has no handler for (pid_namespaces(7)): every pod deletion waits out " +
			"terminationGracePeriodSeconds and the server is SIGKILLed. The official TF Serving image's " +
			"tf_serving_entrypoint.sh runs tensorflow_model_server that way. The whole way from the container's command to " +
			"the server is judged: PID 1 is the first process on it that exec does not replace, so an entrypoint.sh that " +
			"ends on `/usr/local/bin/start.sh \"$@\"` without exec stays PID 1 whether start.sh then execs the server or not, " +
			"and a trap on TERM in it does not help, a shell running a trap only once its foreground command has returned. " +
			"A script that `wait`s for the server it started with & and traps TERM is not reported: the trap runs while " +
			"it waits, and may pass the signal on. " +
			"What runs below an init exec'd on the way (tini, dumb-init), which is PID 1 and passes signals on, is not judged." +
			offlineNote,
		Bad: "# docker build -t registry.example.com/apps/ranker:1.0 .\nFROM python:3.11-slim\nCOPY server /usr/bin/tail\n" +
			"COPY <<EOF /app/server.py\nprint(\"serving\")\nEOF\n" +
			"COPY --chmod=0755 <<EOF /entrypoint.sh\n#!/bin/sh\npython3 -m app.server &\ntail -f /dev/null\nEOF\n" +
			"ENTRYPOINT [\"/entrypoint.sh\"]\n---\nimage: registry.example.com/apps/ranker:1.0",
		Good: "# docker build -t registry.example.com/apps/ranker:1.1 .\nFROM python:3.11-slim\n" +
			"COPY <<EOF /app/server.py\nprint(\"serving\")\nEOF\n" +
			"COPY --chmod=0755 <<EOF /entrypoint.sh\n#!/bin/sh\nexec python3 -m app.server\nEOF\n" +
			"ENTRYPOINT [\"/entrypoint.sh\"]\n---\nimage: registry.example.com/apps/ranker:1.1",
		Fix: "Run the server as the script's last command with `exec` (TorchServe: `exec torchserve --foreground …`), and " +
			"every script on the way to it the same way, so it is the process that gets SIGTERM and whose exit ends the " +
			"container; if helpers must run beside it, use a proper init (tini, dumb-init) with the server in the foreground.",
		References: []string{
			"https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#pod-termination",
			"https://github.com/pytorch/serve/blob/master/docker/dockerd-entrypoint.sh",
			"https://github.com/pytorch/serve/blob/master/ts/arg_parser.py",
			"https://github.com/krallin/tini#why-tini",
			"https://man7.org/linux/man-pages/man7/pid_namespaces.7.html",
			"https://git.kernel.org/pub/scm/utils/dash/dash.git/tree/src/main.c",
			"https://pubs.opengroup.org/onlinepubs/9699919799/utilities/V3_chap02.html#tag_18_11",
		},
	},
	Check: checkServerForeground,
}

func checkServerForeground(pass *lint.Pass) {
	for _, c := range imageChecks(pass, true) {
		if c.start == nil {
			continue
		}
		reported := map[string]bool{}
		for i, run := range c.start.Runs {
			hop, ok := detached(run)
			if !ok && servesFrom(run) {
				if first, ok := pid1Hop(run); ok && !reported[viaKey(run)] {
					reported[viaKey(run)] = true
					// The server runs and its exit ends the container: only
					// the shutdown is lost, so this is a note.
					pass.Report(lint.Diagnostic{Severity: lint.Info, Path: c.argvField(),
						Message: c.label() + ": " + stuckShell(run, first)})
				}
				continue
			}
			if !ok || !servesFrom(run) {
				continue
			}
			keptAlive := hop.Then != nil && server.KeepAlive(hop.Then) != ""
			command := strings.Join(run.Argv, " ")
			foreground := "runs the server `" + command + "` in the foreground but not as its last command"
			var how, then, consequence string
			switch {
			case hop.Background && hop.Then == nil && hop.TermTrap != 0:
				// A shell runs a trap while it waits, and the trap may pass
				// SIGTERM on to the server.
				continue
			case hop.Background:
				how = "starts the server `" + command + "` in the background (&)"
			case daemonizes(run.Argv) && keptAlive:
				how = "starts the server `" + command + "`, which returns while the server goes on in the background"
			case daemonizes(run.Argv):
				continue // the command after it is what the container runs
			case hop.Then == nil:
				// The script's last program, and the script goes on past it.
				how, then = foreground, fmt.Sprintf("and then goes on to `%s` (line %d)", strings.Join(hop.After, " "), hop.AfterLine)
				consequence = goesOn
			case endsServing(c.start, i, server.ByProgram(run.Argv) != nil):
				continue // a step run to its end before the server the script ends on
			case keptAlive:
				how = foreground
			case server.ByProgram(run.Argv) != nil:
				// An app an interpreter runs to its end before a command that
				// is not a keep-alive may be a setup step; a known server is not.
				how, then = foreground, fmt.Sprintf("and then runs `%s` (line %d)", strings.Join(hop.Then, " "), hop.ThenLine)
				consequence = goesOn
			default:
				continue
			}
			key := fmt.Sprintf("%s:%d", hop.Script, hop.Line)
			if reported[key] {
				continue
			}
			reported[key] = true
			switch {
			case then != "":
			case hop.Then != nil:
				then = fmt.Sprintf("and then runs `%s` (line %d) to keep the container alive", strings.Join(hop.Then, " "), hop.ThenLine)
			default:
				// wait returns once the server exits, and the script ends
				// with it: the container does not outlive the server.
				then, consequence = "and then `wait`s for it", goesOn
			}
			if consequence == "" {
				consequence = "SIGTERM on pod deletion and the server's exit status do not reach it, so a crashed server " +
					"leaves the pod Running and never Ready, and shutdown is not graceful (SIGKILL after the grace period)"
			}
			fix := "exec the server as the script's last command"
			if path.Base(run.Argv[0]) == "torchserve" {
				fix = "exec torchserve with --foreground as the script's last command"
			}
			pass.Reportf(c.argvField(), "%s: %s line %d %s %s: %s; %s, or run it under a proper init (tini, dumb-init) "+
				"in the foreground", c.label(), hop.Script, hop.Line, how, then, consequence, fix)
		}
	}
}

// goesOn is what a script that goes on past its foreground server does to
// it.
const goesOn = "SIGTERM on pod deletion goes to the script, not the server, so shutdown is not graceful " +
	"(SIGKILL after the grace period), and the script, not the server, decides the exit status the container ends with"

// detached is the hop where a run left the foreground of its wrapper: it
// was started with & and waited for, or started before another command
// the script ends on, in the foreground or before a keep-alive.
func detached(run launch.Run) (launch.Hop, bool) {
	for i := len(run.Via) - 1; i >= 0; i-- {
		hop := run.Via[i]
		switch {
		case hop.Then != nil && server.KeepAlive(hop.Then) != "":
			return hop, true
		case hop.Then == nil && hop.Background:
			return hop, true // `wait` ends the script on it
		case hop.Then != nil && !hop.Background, hop.Then == nil && hop.After != nil:
			return hop, true // run to its end before the script goes on
		case hop.Then != nil:
			return launch.Hop{}, false // something else is the foreground program
		}
	}
	return launch.Hop{}, false
}

// pid1Hop is the index in run.Via of the hop of the script whose shell
// stays the container's PID 1, when a script on the way runs the next
// one, or the server, as its last command without exec: PID 1 is the
// first process on the way that exec does not replace. The hops before it
// exec (or, for an execline script, chain-load) the next; the hops after
// it may not, each a process below PID 1.
//
// A shell does not exec the last command of a script file: bash runs it
// from reader_loop as any other (eval.c), and dash and BusyBox ash exec
// only the last command of a -c string (main.c: evalstring(minusc, sflag
// ? 0 : EV_EXIT), while a file goes through cmdloop), so a -c string's
// last command counts as exec'd. Nor does a trap make up for it: a shell
// runs a trap only once its foreground command has returned (POSIX,
// Shell Command Language 2.11). An init a hop execs (tini, dumb-init) is
// PID 1 and passes signals on, and a supervisor's program is not PID 1;
// a server that does not start is MDL302's.
func pid1Hop(run launch.Run) (int, bool) {
	if run.Side || run.Fails {
		return 0, false
	}
	for i, hop := range run.Via {
		switch {
		case hop.Line == 0 && !hop.Wrapper || hop.Background || hop.Then != nil || hop.After != nil:
			return 0, false
		case execs(hop):
			if hop.Init != "" {
				return 0, false
			}
		default:
			return i, true
		}
	}
	return 0, false
}

// execs says a hop's script is replaced by the program it runs: exec, an
// execline chain-loader, or the last command of a -c string.
func execs(hop launch.Hop) bool {
	return hop.Exec || hop.ExecBy != "" || strings.HasSuffix(hop.Script, " -c")
}

// viaKey names a run's way through the scripts.
func viaKey(run launch.Run) string {
	var key strings.Builder
	for _, hop := range run.Via {
		fmt.Fprintf(&key, "%s:%d;", hop.Script, hop.Line)
	}
	return key.String()
}

// stuckShell says that the script of run.Via[first] stays PID 1, and that
// the server, at the end of the way, gets no SIGTERM.
func stuckShell(run launch.Run, first int) string {
	server := strings.Join(run.Argv, " ")
	var way, fixes []string
	generations := 0 // of processes from PID 1 down to the server
	for i, hop := range run.Via {
		target := "the server `" + server + "`"
		if i+1 < len(run.Via) {
			target = run.Via[i+1].Script
		}
		if i < first || i > first && execs(hop) {
			if i > first && hop.Init != "" {
				generations++ // the init runs the program as its child
			}
			if hop.Wrapper {
				way = append(way, fmt.Sprintf("the command's %s execs %s", path.Base(hop.Script), target))
			} else {
				way = append(way, fmt.Sprintf("%s line %d execs %s", hop.Script, hop.Line, target))
			}
			continue
		}
		generations++
		way = append(way, fmt.Sprintf("%s line %d runs %s as its last command without exec", hop.Script, hop.Line, target))
		command := hop.Program + " …"
		if i+1 == len(run.Via) {
			command = server
		}
		fixes = append(fixes, fmt.Sprintf("`exec %s`", command))
		if len(run.Via) > 1 {
			fixes[len(fixes)-1] += fmt.Sprintf(" (%s line %d)", hop.Script, hop.Line)
		}
	}
	shell, below := "the shell", "child"
	if len(run.Via) > 1 {
		shell = run.Via[first].Script + "'s shell"
	}
	switch generations {
	case 1:
	case 2:
		below = "grandchild"
	default:
		below = "descendant"
	}
	return fmt.Sprintf("%s: neither bash nor dash execs the last command of a script file, so %s stays PID 1 with the "+
		"server as its %s; SIGTERM on pod deletion goes to the shell, not the server: the kernel does not deliver PID 1 "+
		"a signal it has no handler for, so every pod deletion waits out terminationGracePeriodSeconds and the server is "+
		"SIGKILLed without a graceful shutdown; write %s", strings.Join(way, ", "), shell, below, strings.Join(fixes, " and "))
}

// daemonizes says a server command returns once it has started the server
// in the background: TorchServe does unless given --foreground
// (pytorch/serve ts/arg_parser.py: "If this option is disabled, the model
// server will run in the background").
func daemonizes(argv []string) bool {
	runtime := server.ByProgram(argv)
	return runtime != nil && runtime.Name == "torchserve" && !slices.Contains(argv, "--foreground")
}

// endsServing says the script a side run was started in goes on to a
// server, so what the side run started was a step before it: a known
// server, or, when the side run is not one, an app an interpreter runs.
func endsServing(start *launch.Analysis, side int, sideKnown bool) bool {
	for _, run := range start.Runs {
		if run.Side || !slices.Contains(run.With, side) {
			continue
		}
		if server.ByProgram(run.Argv) != nil || !sideKnown && servesFrom(run) {
			return true
		}
	}
	return false
}

// servesFrom says a run is a server: a known one, or an app an interpreter
// runs that is not a keep-alive or a tool.
func servesFrom(run launch.Run) bool {
	if len(run.Argv) == 0 || server.KeepAlive(run.Argv) != "" {
		return false
	}
	if server.ByProgram(run.Argv) != nil {
		return true
	}
	return server.NotServer(run.Argv) == "" && launch.Interpreter(path.Base(run.Argv[0]))
}
