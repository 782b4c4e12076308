package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/modellint/modellint/lint"
)

// explainWidth is where `modellint explain` wraps prose.
const explainWidth = 80

// RuleList writes the table `modellint rules` prints.
// width is the terminal width (0: DefaultWidth); the summary column wraps.
func RuleList(w io.Writer, rules []*lint.Rule, width int) error {
	terminalWidth := Options{Width: width}.width()
	widths := [4]int{len("ID"), len("NAME"), len("SEVERITY"), len("ARTIFACT")}
	for _, rule := range rules {
		for i, cell := range []string{rule.ID, rule.Name, rule.Severity.String(), string(rule.Artifact)} {
			widths[i] = max(widths[i], displayWidth(cell))
		}
	}
	summaryWidth := terminalWidth - 2
	for _, width := range widths {
		summaryWidth -= width + 2
	}
	summaryWidth = max(minMessageWidth, summaryWidth)

	var out bytes.Buffer
	rows := make([][]string, 0, len(rules))
	for _, rule := range rules {
		summary := strings.Join(wrapWords(rule.Doc.Summary, summaryWidth), "\n")
		rows = append(rows, []string{rule.ID, rule.Name, rule.Severity.String(), string(rule.Artifact), summary})
	}
	writeColumns(&out, []string{"ID", "NAME", "SEVERITY", "ARTIFACT", "SUMMARY"}, rows)
	_, err := w.Write(trimTrailingSpace(out.Bytes()))
	return err
}

// Explain writes a rule's documentation as plain text for the terminal.
func Explain(w io.Writer, rule *lint.Rule) error {
	var out strings.Builder
	fmt.Fprintf(&out, "%s %s (%s, %s)\n\n", rule.ID, rule.Name, rule.Severity, rule.Artifact)
	out.WriteString(ruleText(rule, explainWidth))
	fmt.Fprintf(&out, "\nDocumentation: %s\n", rule.DocsURL())
	_, err := io.WriteString(w, out.String())
	return err
}

// ruleText is a rule's documentation as plain text: the summary, then one
// section per part of the doc that is present. Prose wraps at width; 0 keeps
// it on one line for readers that wrap themselves.
func ruleText(rule *lint.Rule, width int) string {
	var out strings.Builder
	const indent = "  "
	prose := func(text string) {
		if width <= 0 {
			for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
				out.WriteString(indent + line + "\n")
			}
			return
		}
		for _, line := range wrapWords(strings.TrimSpace(text), width-len(indent)) {
			out.WriteString(strings.TrimRight(indent+line, " ") + "\n")
		}
	}
	verbatim := func(text string) {
		for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
			out.WriteString(strings.TrimRight(indent+line, " ") + "\n")
		}
	}
	summary := firstNonEmpty(rule.Doc.Summary, rule.Name, rule.ID)
	if width > 0 {
		out.WriteString(strings.Join(wrapWords(summary, width), "\n") + "\n")
	} else {
		out.WriteString(summary + "\n")
	}
	section := func(title, text string, write func(string)) {
		if strings.TrimSpace(text) == "" {
			return
		}
		out.WriteString("\n" + title + ":\n")
		write(text)
	}
	section("Why", rule.Doc.Why, prose)
	section("Bad example", rule.Doc.Bad, verbatim)
	section("Good example", rule.Doc.Good, verbatim)
	section("Fix", rule.Doc.Fix, prose)
	section("Automatic fix", autoFix(rule), prose)
	section("References", strings.Join(rule.Doc.References, "\n"), verbatim)
	return out.String()
}

// autoFix says what --fix does for the rule's findings.
func autoFix(rule *lint.Rule) string {
	switch rule.Fixes {
	case lint.FixSafe:
		return "safe: --fix applies it (--diff shows it) where the field is written in a plain file; in Helm or Kustomize " +
			"output, or in flow style it cannot edit, the finding carries it as a suggestion (JSON, SARIF, the Markdown summary)."
	case lint.FixUnsafe:
		return "unsafe: it changes behaviour beyond the finding, so --fix applies it only with --unsafe-fixes."
	}
	return ""
}

// ruleMarkdown is a rule's documentation as Markdown, shared by
// docs/rules.md and the SARIF help GitHub shows next to an alert.
func ruleMarkdown(rule *lint.Rule) string {
	var out strings.Builder
	out.WriteString(markdownProse(firstNonEmpty(rule.Doc.Summary, rule.Name, rule.ID)) + "\n")
	if why := markdownProse(rule.Doc.Why); why != "" {
		out.WriteString("\n**Why:** " + why + "\n")
	}
	example := func(title, text string) {
		if strings.TrimSpace(text) == "" {
			return
		}
		fmt.Fprintf(&out, "\n**%s:**\n", title)
		for _, block := range exampleBlocks(text) {
			fence := codeFence(block.text)
			fmt.Fprintf(&out, "\n%s%s\n%s\n%s\n", fence, block.language, strings.TrimRight(block.text, "\n"), fence)
		}
	}
	example("Bad", rule.Doc.Bad)
	example("Good", rule.Doc.Good)
	if fix := markdownProse(rule.Doc.Fix); fix != "" {
		out.WriteString("\n**Fix:** " + fix + "\n")
	}
	if fix := autoFix(rule); fix != "" {
		out.WriteString("\n**Automatic fix:** " + markdownProse(fix) + "\n")
	}
	if len(rule.Doc.References) > 0 {
		out.WriteString("\n**References:**\n\n")
		for _, reference := range rule.Doc.References {
			out.WriteString("- <" + reference + ">\n")
		}
	}
	return out.String()
}

// exampleBlock is part of an example, in one code block.
type exampleBlock struct{ language, text string }

// exampleBlocks splits an example at its --- lines into the Dockerfiles of
// its images (a part whose first line is the `# docker build …` command),
// its model dir trees (`# model dir`, `# --model DIR:MOUNTPATH`) and YAML,
// each run of YAML parts kept in one block.
func exampleBlocks(text string) []exampleBlock {
	var blocks []exampleBlock
	for _, part := range strings.Split(text, "\n---\n") {
		language := "yaml"
		switch {
		case strings.HasPrefix(part, "# docker "):
			language = "dockerfile"
		case strings.HasPrefix(part, "# model dir\n") || strings.HasPrefix(part, "# --model "):
			language = "text"
		}
		if n := len(blocks); n > 0 && language == "yaml" && blocks[n-1].language == "yaml" {
			blocks[n-1].text += "\n---\n" + part
			continue
		}
		blocks = append(blocks, exampleBlock{language, part})
	}
	return blocks
}

// codeFence is a backtick fence longer than any backtick run in text, so an
// example cannot end its own code block.
func codeFence(text string) string {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
			continue
		}
		run = 0
	}
	return strings.Repeat("`", max(3, longest+1))
}

// examplesNote says how the rules' examples are written, and that they are
// linted as written.
const examplesNote = "Each rule's Bad and Good examples are linted as shown by modellint's tests: Bad must trigger the " +
	"rule, Good must be checked and pass. How they are written:\n\n" +
	"- A manifest example is merged into a clean TF Serving Deployment.\n" +
	"- A model rule's example is a model directory tree, one entry a line, two spaces of indent a level, " +
	"directories ending in `/`. A file is empty unless its entry ends in `<<EOF`: then the lines below it, up to a " +
	"line `EOF`, are its text. A file written `NAME (SIZE)` has that size, written as a sparse file: its content, " +
	"if any, then zeros (`model.safetensors (27.5 GiB)`).\n" +
	"- A binary file is written from a readable text the same way, ended by a line of the format's name: " +
	"`<<pbtxt`, a text-format protobuf of the message the file holds (`saved_model.pb`: SavedModel; `.onnx`: " +
	"ModelProto; `tf_serving_warmup_requests`: PredictionLog), written in binary; `<<tfrecord`, such messages " +
	"separated by lines of `---`, each written as a TFRecord record with its checksums; `<<safetensors`, the JSON " +
	"header, written after its 8-byte length and followed by the zeros of tensor data its `data_offsets` span " +
	"(a stated size must round to the file's); `<<pickle`, pickle opcodes one a line as `python -m pickletools` " +
	"names them, with their arguments (`GLOBAL 'posix system'`); `<<checkpoint`, a TensorFlow checkpoint index " +
	"(`variables.index`) as the text format of its header and of each tensor's name and BundleEntryProto; " +
	"`<<float32`, numbers written as little-endian float32, the raw tensor data of `variables.data-*` and ONNX " +
	"external data files; `<<gguf`, a GGUF header, one metadata key a line (`KEY = VALUE`) and one tensor a line " +
	"(`tensor NAME TYPE [DIMS]`), followed by the zeros of tensor data the tensors take (a stated size must " +
	"round to the file's).\n" +
	"- An image is shown as the Dockerfile that builds it, its first line the `docker build` command that names " +
	"and tags it, from scratch with only what the example needs, or from `python:3.11-slim`, which stands for what " +
	"modellint reads of that image: /bin/sh, python3.11 with its standard library, an empty site-packages, and its " +
	"PATH. Its files are written in the Dockerfile (`COPY <<EOF`) or copied from a small build context: `server` " +
	"(a static executable), `server-glibc` (linked against glibc, needing GLIBC_2.34), `server-musl` (loaded by " +
	"musl's ld-musl), and `glibc/libc.so.6`, `glibc/ld-linux-x86-64.so.2` and `glibc-2.28/libc.so.6` (a libc " +
	"whose newest version is GLIBC_2.28, like Debian 10's).\n" +
	"- A part headed `# .modellint.yaml` is the config, one headed `# --cluster nodes.yaml` the cluster's nodes, " +
	"one headed `# model dir` the tree of the model dirs beside a cross rule's manifest (without one, a valid TF " +
	"Serving model named resnet), linked by name, or `# --model DIR:MOUNTPATH` the same, DIR mapped to MOUNTPATH " +
	"as that flag maps it.\n\n"

// severityPolicy is the rule every rule's severities follow.
const severityPolicy = "## Severity\n\n" +
	"A severity says what happens to the pod, not how much a rule matters:\n\n" +
	"- **error**: the pod certainly fails or is refused: the API server or an admission webhook rejects it, it " +
	"never becomes Ready, it crashes or is OOMKilled at the sizes the finding states. An error never rests on an " +
	"assumed rate or size alone: an estimate is an error only when even its most favourable end fails (a model " +
	"that cannot load in the probe budget at 2 GiB/s from a local disk).\n" +
	"- **warning**: a risk or a policy: no memory limit, no readiness probe, a mutable tag, a GPU left idle, an " +
	"estimate that fails at the assumed rate or overhead (the message states the assumption and its range), a " +
	"field the bundled types of a CRD do not know.\n" +
	"- **info**: a note worth reading, such as a size that makes a controller add nodes.\n\n" +
	"The table gives each rule's usual severity; a rule reports another where its consequence is more or less " +
	"certain. modellint exits 1 on errors; `--fail-on warning`, or a per-rule severity in .modellint.yaml " +
	"(which every finding of that rule then has), " +
	"makes warnings fail a build too.\n\n"

// RulesMarkdown writes docs/rules.md: an index of every rule, then one
// section per rule whose heading anchor is the fragment of Rule.DocsURL.
func RulesMarkdown(w io.Writer, rules []*lint.Rule) error {
	var out strings.Builder
	out.WriteString("<!-- generated by make docs; do not edit -->\n\n")
	out.WriteString("# modellint rules\n\n")
	fmt.Fprintf(&out, "modellint has %s. `modellint rules` lists them and `modellint explain ID` prints one; "+
		"this page is generated from the same definitions.\n\n", plural(len(rules), "rule", "rules"))
	out.WriteString("Every finding names the file and line to edit. For a Helm chart or Kustomize overlay, which modellint " +
		"renders itself, that is the template, values-file or patch line that wrote the field; a field no line wrote " +
		"(a default Helm filled in, a value given with `--helm-set`) is placed on the template line that renders it, " +
		"and the finding's field path says which field it is. See \"Helm charts and Kustomize overlays\" in the README.\n\n")
	out.WriteString(examplesNote)
	out.WriteString(severityPolicy)
	out.WriteString("| Rule | Name | Severity | Artifact | Summary |\n")
	out.WriteString("| --- | --- | --- | --- | --- |\n")
	for _, rule := range rules {
		fmt.Fprintf(&out, "| [%s](#%s) | %s | %s | %s | %s |\n", rule.ID, anchor(rule), tableCell(rule.Name),
			rule.Severity, tableCell(string(rule.Artifact)), tableCell(rule.Doc.Summary))
	}
	for _, rule := range rules {
		fmt.Fprintf(&out, "\n## %s %s\n\n", rule.ID, rule.Name)
		fmt.Fprintf(&out, "- **Severity:** %s\n", rule.Severity)
		fmt.Fprintf(&out, "- **Artifact:** %s\n", rule.Artifact)
		needs := make([]string, 0, len(rule.Needs))
		for _, fact := range rule.Needs {
			needs = append(needs, string(fact))
		}
		if len(needs) > 0 {
			fmt.Fprintf(&out, "- **Facts needed:** %s\n", strings.Join(needs, ", "))
		}
		out.WriteString("\n" + ruleMarkdown(rule))
	}
	_, err := io.WriteString(w, out.String())
	return err
}

// anchor is the fragment GitHub derives from "## MDL205 memory-limit-missing".
func anchor(rule *lint.Rule) string {
	docsURL := rule.DocsURL()
	return docsURL[strings.LastIndexByte(docsURL, '#')+1:]
}

func tableCell(text string) string {
	text = markdownProse(strings.Join(strings.Fields(text), " "))
	return strings.ReplaceAll(text, "|", `\|`)
}

// markdownProse escapes angle brackets outside `code spans`, so that a
// placeholder such as <model> is shown instead of being taken for HTML.
func markdownProse(text string) string {
	text = strings.TrimSpace(text)
	parts := strings.Split(text, "`")
	if len(parts)%2 == 0 {
		// An unpaired backtick starts no code span: escape everything.
		parts = []string{text}
	}
	for i := 0; i < len(parts); i += 2 {
		parts[i] = strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace(parts[i])
	}
	return strings.Join(parts, "`")
}
