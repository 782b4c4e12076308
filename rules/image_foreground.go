package rules

import (
	"fmt"
	"path"
	"strings"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/image/launch"
	"github.com/modellint/modellint/lint/server"
)

// MDL312: a wrapper script starts the server and then keeps the container
// alive with something else, so the server is not the process the runtime
// signals and watches.

var serverNotForeground = &lint.Rule{
	ID: "MDL312", Name: "server-not-foreground", Severity: lint.Warning,
	Artifact: lint.ArtifactImage, Needs: []lint.Fact{lint.FactImage},
	Doc: lint.Doc{
		Summary: "A wrapper script starts the server in the background (&, or a server that daemonizes such as `torchserve --start`) and then keeps the container alive with `tail -f /dev/null`, `sleep infinity` or `wait`.",
		Why: "The runtime sends SIGTERM on pod deletion to the container's PID 1 and ends the container when PID 1 exits. " +
			"When that process is the wrapper's keep-alive command (or a shell waiting for a job), the server never gets " +
			"the SIGTERM: it is killed with SIGKILL after terminationGracePeriodSeconds, in-flight requests are cut and " +
			"nothing is flushed. Worse, when the server crashes (out of memory, a model that fails to load) the keep-alive " +
			"command goes on: the container stays Running, is never restarted, and the pod sits not Ready instead of in " +
			"CrashLoopBackOff with the server's exit status and logs. The official TorchServe image's dockerd-entrypoint.sh " +
			"does this (`torchserve --start` then `tail -f /dev/null`). Every command of the script that starts a known " +
			"server or an interpreter is followed, in the branches the script may take, and is checked like the command " +
			"it ends on (MDL301-MDL304, MDL320-MDL322)." + offlineNote,
		Bad: "# entrypoint.sh\n#!/bin/sh\npython -m app.server &\ntail -f /dev/null",
		Good: "# entrypoint.sh\n#!/bin/sh\nexec python -m app.server\n" +
			"# or, for a server that must share the container with helpers: ENTRYPOINT [\"tini\", \"--\", \"/entrypoint.sh\"] and the server last, in the foreground",
		Fix: "Run the server as the script's last command with `exec` (TorchServe: `exec torchserve --foreground …`), so it " +
			"is the process that gets SIGTERM and whose exit ends the container; if helpers must run beside it, use a proper " +
			"init (tini, dumb-init) with the server in the foreground.",
		References: []string{
			"https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#pod-termination",
			"https://github.com/pytorch/serve/blob/master/docker/dockerd-entrypoint.sh",
			"https://github.com/pytorch/serve/blob/master/ts/arg_parser.py",
			"https://github.com/krallin/tini#why-tini",
		},
		Unlintable: "the example names an image whose files and config it can only describe; the rule's " +
			"fixture builds such images (testdata/MDL312/images.yaml)",
	},
	Check: checkServerForeground,
}

func checkServerForeground(pass *lint.Pass) {
	for _, c := range imageChecks(pass, true) {
		if c.start == nil {
			continue
		}
		reported := map[string]bool{}
		for _, run := range c.start.Runs {
			hop, ok := detached(run)
			if !ok || !servesFrom(run) || !hop.Background && server.ByProgram(run.Argv) == nil {
				continue // an app run to its end before the keep-alive is no server left behind
			}
			key := fmt.Sprintf("%s:%d", hop.Script, hop.Line)
			if reported[key] {
				continue
			}
			reported[key] = true
			command := strings.Join(run.Argv, " ")
			how := "starts the server `" + command + "` in the background (&)"
			if !hop.Background {
				how = "starts the server `" + command + "`, which returns while the server goes on in the background"
			}
			then := "and then `wait`s for it"
			if hop.Then != nil {
				then = fmt.Sprintf("and then runs `%s` (line %d) to keep the container alive", strings.Join(hop.Then, " "), hop.ThenLine)
			}
			fix := "exec the server as the script's last command"
			if path.Base(run.Argv[0]) == "torchserve" {
				fix = "exec torchserve with --foreground as the script's last command"
			}
			pass.Reportf(c.argvField(), "%s: %s line %d %s %s: SIGTERM on pod deletion and the server's exit status do "+
				"not reach it, so a crashed server leaves the pod Running and never Ready, and shutdown is not graceful "+
				"(SIGKILL after the grace period); %s, or run it under a proper init (tini, dumb-init) in the foreground",
				c.label(), hop.Script, hop.Line, how, then, fix)
		}
	}
}

// detached is the hop where a run left the foreground of its wrapper: it
// was started with & and waited for, or started before a keep-alive
// command the script ends on.
func detached(run launch.Run) (launch.Hop, bool) {
	for i := len(run.Via) - 1; i >= 0; i-- {
		hop := run.Via[i]
		switch {
		case hop.Then != nil && server.KeepAlive(hop.Then) != "":
			return hop, true
		case hop.Then == nil && hop.Background:
			return hop, true // `wait` ends the script on it
		case hop.Then != nil:
			return launch.Hop{}, false // something else is the foreground program
		}
	}
	return launch.Hop{}, false
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
