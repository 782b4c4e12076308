package report

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode"

	"github.com/modellint/modellint/internal/message"
	"github.com/modellint/modellint/lint"
)

// maxStartCharts bounds the timelines a summary draws: past a few dozen a
// reader looks at the findings instead.
const maxStartCharts = 20

// writeMarkdownStarts draws, for each model-server container with a load
// estimate, a Mermaid gantt chart of its start on one axis of seconds: the
// image pull, the server's start-up, the model's load and Ready, against
// the probes. A startup or liveness probe whose budget ends before the
// load is drawn as critical (red): that is when the kubelet restarts the
// container (MDL402, MDL203). A workload that a finding says never becomes
// Ready (Finding.NeverReady) gets a red "never Ready" bar naming the rules
// instead of its estimated Ready. The numbers are the rules' estimates.
func writeMarkdownStarts(out *strings.Builder, starts []lint.StartEstimate, findings []lint.Finding) {
	if len(starts) == 0 || out.Len() >= markdownLimit {
		return
	}
	out.WriteString("\n### Start of the model servers\n\n" +
		"Estimated, not measured: each model's bytes at the load rate assumed under `estimates:` in .modellint.yaml, " +
		"in seconds from the image pull. A probe drawn in red restarts the container before the model has loaded.\n")
	blocking := neverReadyRules(findings)
	for i, start := range starts {
		if i == maxStartCharts {
			fmt.Fprintf(out, "\n%s not drawn.\n", plural(len(starts)-i, "more container", "more containers"))
			return
		}
		chart := markdownStart(start, blocking[start.Target])
		if out.Len()+len(chart) > markdownLimit {
			fmt.Fprintf(out, "\n%s not drawn: the summary would exceed GitHub's size limit.\n", plural(len(starts)-i, "more container", "more containers"))
			return
		}
		out.WriteString(chart)
	}
}

// neverReadyRules are, by target, the rules whose unsuppressed findings
// say the target's pod never becomes Ready, each once, in ID order.
func neverReadyRules(findings []lint.Finding) map[string][]lint.Finding {
	byTarget := map[string][]lint.Finding{}
	for _, finding := range findings {
		if !finding.NeverReady || finding.Suppressed() {
			continue
		}
		seen := false
		for _, other := range byTarget[finding.Target] {
			seen = seen || other.RuleID == finding.RuleID
		}
		if !seen {
			byTarget[finding.Target] = append(byTarget[finding.Target], finding)
		}
	}
	for _, rules := range byTarget {
		sort.Slice(rules, func(i, j int) bool { return rules[i].RuleID < rules[j].RuleID })
	}
	return byTarget
}

// markdownStart is one container's sentence and chart; blocking are the
// findings (one per rule) that say its pod never becomes Ready.
func markdownStart(start lint.StartEstimate, blocking []lint.Finding) string {
	// Whole seconds, rounded as the sentence writes them, so that the
	// chart and the sentence agree.
	pull := math.Round(start.PullSeconds)
	started := pull                                   // the probes' clocks start with the container
	loaded := started + math.Round(start.LoadSeconds) // the model served
	serverUp := math.Min(started+math.Round(start.StartupSeconds), loaded)

	var text, chart strings.Builder
	fmt.Fprintf(&text, "\n**%s**, container %s: %s (%s) loads in an estimated %.0fs (%.0fs start-up, then %s at %g MiB/s",
		markdownText(start.Target), markdownText(start.Container), markdownText(start.Model), message.Bytes(start.ModelBytes),
		start.LoadSeconds, start.StartupSeconds, message.Bytes(start.ModelBytes), start.LoadMiBPerSecond)
	if start.ThrottledSeconds >= 0.5 {
		fmt.Fprintf(&text, ", %.0fs more under limits.cpu %s", start.ThrottledSeconds, markdownText(start.CPULimit))
	}
	text.WriteString(")")
	if start.ImageBytes > 0 {
		fmt.Fprintf(&text, " after pulling %s of image at %g MiB/s (%.0fs)", message.Bytes(start.ImageBytes), start.PullMiBPerSecond, start.PullSeconds)
	} else {
		text.WriteString("; the image was not read, so its pull is not drawn")
	}
	text.WriteString(".")

	chart.WriteString("\n```mermaid\ngantt\n")
	fmt.Fprintf(&chart, "    title %s container %s\n", mermaidText(start.Target), mermaidText(start.Container))
	// Seconds as Unix times, shown as seconds: the axis reads the same in
	// every time zone.
	chart.WriteString("    dateFormat X\n    axisFormat %s\n")
	chart.WriteString("    section Container\n")
	if pull > 0 {
		fmt.Fprintf(&chart, "    image pull %s :pull, 0, %.0f\n", mermaidText(message.Bytes(start.ImageBytes)), pull)
	}
	fmt.Fprintf(&chart, "    server start-up :startup, %.0f, %.0f\n", started, serverUp)
	throttled := ""
	if start.ThrottledSeconds >= 0.5 {
		throttled = fmt.Sprintf(" plus %.0fs CPU throttling", start.ThrottledSeconds)
	}
	fmt.Fprintf(&chart, "    model load %s at %g MiB per s%s :load, %.0f, %.0f\n", mermaidText(message.Bytes(start.ModelBytes)),
		start.LoadMiBPerSecond, throttled, serverUp, loaded)

	var startup, liveness, readiness *lint.ProbeTiming
	for i := range start.Probes {
		switch start.Probes[i].Kind {
		case "startupProbe":
			startup = &start.Probes[i]
		case "livenessProbe":
			liveness = &start.Probes[i]
		case "readinessProbe":
			readiness = &start.Probes[i]
		}
	}
	// Ready: at the first readiness check after the load; without a
	// readinessProbe the pod is Ready as soon as the container runs,
	// before the model has loaded.
	ready := started
	readyText := "Ready at once (no readinessProbe)"
	if readiness != nil {
		ready = started + float64(readiness.InitialDelaySeconds)
		if period := float64(max(readiness.PeriodSeconds, 1)); loaded > ready {
			ready += math.Ceil((loaded-ready)/period) * period
		}
		readyText = "Ready (readinessProbe passes)"
	}

	// killer is the probe whose budget bounds the load: the startupProbe,
	// else the livenessProbe.
	killer := startup
	if killer == nil {
		killer = liveness
	}
	restarted := killer != nil && started+float64(killer.Budget()) < loaded
	// minimum is the start-up a livenessProbe without a startupProbe must
	// allow (MDL203); drawn beside the liveness budget it is judged by.
	minimum := 0.0
	if liveness != nil && startup == nil {
		minimum = float64(start.MinStartupSeconds)
	}
	switch {
	case len(blocking) > 0:
		// From when the estimate would have the pod Ready (or the probes
		// restart it) to the chart's end: it never is.
		from := ready
		if restarted {
			from = started + float64(killer.Budget())
		}
		end := math.Max(loaded, started+minimum)
		for _, probe := range start.Probes {
			end = math.Max(end, started+float64(probe.Budget()))
		}
		end = math.Max(end, from+1)
		var ids []string
		for _, finding := range blocking {
			ids = append(ids, finding.RuleID)
		}
		fmt.Fprintf(&chart, "    never Ready (%s) :crit, never-ready, %.0f, %.0f\n", strings.Join(ids, " "), from, end)
	case !restarted:
		fmt.Fprintf(&chart, "    %s :milestone, ready, %.0f, %.0f\n", readyText, ready, ready)
	}
	if len(start.Probes) > 0 {
		chart.WriteString("    section Probes\n")
	}
	probeBar := func(probe *lint.ProbeTiming, id string, from float64, what string) {
		end := from + float64(probe.Budget())
		tags := ""
		if probe == killer && restarted {
			tags = "crit, "
		}
		fmt.Fprintf(&chart, "    %s %s %ds :%s%s, %.0f, %.0f\n", probe.Kind, what, probe.Budget(), tags, id, from, end)
	}
	if startup != nil {
		probeBar(startup, "startup-probe", started, "restarts the container after")
	}
	if liveness != nil {
		if startup == nil {
			probeBar(liveness, "liveness-probe", started, "restarts the container after")
			if minimum > 0 {
				fmt.Fprintf(&chart, "    probes.minStartupSeconds %.0fs to start a model server :min-startup, %.0f, %.0f\n",
					minimum, started, started+minimum)
			}
		} else if !restarted {
			// Liveness checks begin once the startupProbe has passed.
			probeBar(liveness, "liveness-probe", loaded, "from the startupProbe's success, restarts after")
		}
	}
	if readiness != nil {
		first := started + float64(readiness.InitialDelaySeconds)
		fmt.Fprintf(&chart, "    readinessProbe first check :milestone, readiness-probe, %.0f, %.0f\n", first, first)
	}
	if restarted {
		at := started + float64(killer.Budget())
		fmt.Fprintf(&chart, "    restarted by the %s :crit, milestone, restart, %.0f, %.0f\n", killer.Kind, at, at)
		fmt.Fprintf(&text, " The %s restarts the container at %ds from its start, %.0fs before the load ends.",
			killer.Kind, killer.Budget(), loaded-at)
	} else if readiness == nil && len(blocking) == 0 {
		text.WriteString(" Without a readinessProbe the pod is Ready, and sent requests, before the model has loaded.")
	}
	if minimum > 0 && minimum > float64(liveness.Budget()) {
		fmt.Fprintf(&text, " Without a startupProbe the livenessProbe allows %ds to start, less than the %.0fs a model server "+
			"is given (probes.minStartupSeconds, MDL203).", liveness.Budget(), minimum)
	}
	if len(blocking) > 0 {
		var rules []string
		for _, finding := range blocking {
			rules = append(rules, finding.RuleID+" "+finding.RuleName)
		}
		fmt.Fprintf(&text, " The pod never becomes Ready, whatever the load takes: see %s.", markdownText(strings.Join(rules, ", ")))
	}
	chart.WriteString("```\n")
	return text.String() + "\n" + chart.String()
}

// mermaidText keeps what a gantt line reads as a name: letters, digits,
// spaces and ./-_+() . A colon would end the name, a # or ; the line, and
// a name from a manifest must not add a task or a directive of its own.
func mermaidText(s string) string {
	var out strings.Builder
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(" ./-_+()", r):
			out.WriteRune(r)
		default:
			out.WriteRune(' ')
		}
		if out.Len() > 120 {
			out.WriteString("...")
			break
		}
	}
	return strings.Join(strings.Fields(out.String()), " ")
}
