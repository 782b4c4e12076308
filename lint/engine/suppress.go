package engine

import (
	"fmt"
	"iter"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modellint/modellint/internal/lazyregexp"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/config"
	"github.com/modellint/modellint/lint/manifest"
)

// inlineIgnore matches `# modellint:ignore MDL208,MDL205 reason` (also with
// "=" after "ignore", as some tools spell it).
var inlineIgnore = lazyregexp.New(`#\s*modellint:ignore[=\s]\s*([A-Za-z0-9_,-]+)\s*(.*)$`)

type suppressor struct {
	config *lint.Config
	files  map[string]*manifest.File
	// workloads by target name, to read annotations: several when sibling
	// deployments under one PATH name theirs alike.
	workloads map[string][]*manifest.Workload
	// marked and ignores are what apply reads of files and workloads,
	// taken from them by settle once the rules are done, so that the run's
	// objects can go before its result is made.
	marked  map[string]map[int]string // a file's lines that mention modellint:ignore
	ignores map[string][]ignoresOf
	// annotations are the ignore annotations of the workloads, read (by
	// learn) while their documents are there; a workload with none has no
	// entry.
	annotationsMu sync.Mutex
	annotations   map[*manifest.Workload][]ignoreAnnotation
	now           string
	// missingReason collects one MDL001 finding per suppression without a
	// reason; reasonRule is MDL001 as enabled for the run (nil when disabled).
	missingReason map[lint.Location]lint.Finding
	reasonRule    *lint.Rule
	// expired collects one MDL003 finding per expired config ignore entry
	// that still matches a finding; expiredRule is MDL003 as enabled.
	expired     map[int]lint.Finding
	expiredRule *lint.Rule
}

func newSuppressor(config *lint.Config, set *manifest.Set, now string, rules []*lint.Rule) *suppressor {
	s := &suppressor{config: config, files: map[string]*manifest.File{}, workloads: map[string][]*manifest.Workload{},
		annotations: map[*manifest.Workload][]ignoreAnnotation{}, now: now, missingReason: map[lint.Location]lint.Finding{}, reasonRule: ruleByID(rules, lint.SuppressionRuleID),
		expired: map[int]lint.Finding{}, expiredRule: ruleByID(rules, lint.ExpiredSuppressionRuleID)}
	for _, file := range set.Files {
		s.files[file.Path] = file
	}
	for _, workload := range set.Workloads {
		s.workloads[workload.Name()] = append(s.workloads[workload.Name()], workload)
	}
	return s
}

// ignoresOf are the ignore annotations of a workload and its file.
type ignoresOf struct {
	file        string
	annotations []ignoreAnnotation
}

// settle takes from the files and workloads what apply reads: the marked
// lines of each file, and the file and ignore annotations of each
// workload. Every workload was linted, and learnt, by then: a run one of
// whose workloads could not be read again ends with that error first. The
// suppressor then holds none of them.
//
// A file without marked lines, and a name none of whose workloads has
// ignore annotations, is left out: apply finds nothing for them either
// way, and a large run has tens of thousands.
func (s *suppressor) settle() {
	s.marked = map[string]map[int]string{}
	for path, file := range s.files {
		if marked := file.MarkedLines(); marked != nil {
			s.marked[path] = marked
		}
	}
	s.ignores = map[string][]ignoresOf{}
	for name, workloads := range s.workloads {
		if !slices.ContainsFunc(workloads, func(w *manifest.Workload) bool { return len(s.annotations[w]) > 0 }) {
			continue
		}
		for _, w := range workloads {
			s.ignores[name] = append(s.ignores[name], ignoresOf{file: w.Object.File.Path, annotations: s.annotations[w]})
		}
	}
	s.files, s.workloads, s.annotations = nil, nil, nil
}

// apply marks suppressed findings and adds an MDL001 finding for every
// suppression that gives no reason. It reads what settle took.
func (s *suppressor) apply(findings []lint.Finding) []lint.Finding {
	for i := range findings {
		finding := &findings[i]
		finding.Suppression = s.inline(finding)
		if finding.Suppression == nil {
			finding.Suppression = s.annotation(finding)
		}
		if finding.Suppression == nil {
			finding.Suppression = s.configured(finding)
		}
	}
	// Run sorts all findings afterwards, so map order does not leak out.
	return slices.AppendSeq(findings, s.ownFindings())
}

// ownFindings are the findings the suppressor makes itself: MDL001 for a
// suppression without a reason, MDL003 for an expired ignore entry.
func (s *suppressor) ownFindings() iter.Seq[lint.Finding] {
	return func(yield func(lint.Finding) bool) {
		for _, finding := range s.missingReason {
			if !yield(finding) {
				return
			}
		}
		for _, finding := range s.expired {
			if !yield(finding) {
				return
			}
		}
	}
}

// reasonMissing records an MDL001 finding; fix says where the reason goes.
func (s *suppressor) reasonMissing(location lint.Location, target, how, fix string) {
	if _, seen := s.missingReason[location]; seen || s.reasonRule == nil {
		return
	}
	s.missingReason[location] = lint.Finding{
		RuleID: s.reasonRule.ID, RuleName: s.reasonRule.Name, Severity: s.reasonRule.Severity,
		Message:  how + " gives no reason: " + fix + ", so the next reader knows why the finding is accepted",
		Location: location, Target: target,
	}
}

// inline looks for an ignore comment on the finding's line or the line above.
func (s *suppressor) inline(finding *lint.Finding) *lint.Suppression {
	path := finding.Location.File
	marked, known := s.marked[path]
	if !known || finding.Location.Line == 0 {
		return nil
	}
	for _, line := range []int{finding.Location.Line, finding.Location.Line - 1} {
		text := marked[line]
		if text == "" {
			continue // what inlineIgnore needs, without a regexp match per finding
		}
		if line < finding.Location.Line && !strings.HasPrefix(strings.TrimSpace(text), "#") {
			continue // the line above counts only when it is a comment by itself
		}
		m := inlineIgnore.FindStringSubmatch(text)
		if m == nil || !matchesRule(m[1], finding) {
			continue
		}
		reason := cleanReason(m[2])
		if reason == "" {
			column := strings.Index(text, "#") + 1
			s.reasonMissing(lint.Location{File: path, Line: line, Column: column}, finding.Target,
				"the ignore comment", "write it after the rule IDs (# modellint:ignore MDL208 reason)")
		}
		return &lint.Suppression{Kind: lint.SuppressedByComment, Reason: reason}
	}
	return nil
}

// ignoreAnnotation is an ignore annotation of a workload, on its object or
// its pod template, and where it is written.
type ignoreAnnotation struct {
	value    string
	location lint.Location
}

// learn reads the ignore annotations of a workload, the object's and then
// its pod template's, while the workload's document is there.
func (s *suppressor) learn(workload *manifest.Workload) {
	annotations := workloadIgnores(workload)
	if len(annotations) == 0 {
		return // most workloads have none
	}
	s.annotationsMu.Lock()
	defer s.annotationsMu.Unlock()
	s.annotations[workload] = annotations
}

func workloadIgnores(workload *manifest.Workload) []ignoreAnnotation {
	object := workload.Object
	onObject, objectHas := object.Lookup("metadata", "annotations", lint.IgnoreAnnotation)
	onTemplate, templateHas := workload.TemplateAnnotations[lint.IgnoreAnnotation]
	places := []struct {
		value string
		has   bool
		path  string
	}{
		{asString(onObject), objectHas, "metadata.annotations"},
		{onTemplate, templateHas, manifest.JoinPath(workload.TemplateMetaPath, "annotations")},
	}
	var annotations []ignoreAnnotation
	for _, place := range places {
		if !place.has {
			continue
		}
		annotationPath := manifest.JoinPath(place.path, lint.IgnoreAnnotation)
		file, pos := object.Where(annotationPath)
		annotations = append(annotations, ignoreAnnotation{value: place.value,
			location: lint.Location{File: file, Line: pos.Line, Column: pos.Column, Path: object.FullPath(annotationPath)}})
	}
	return annotations
}

// annotation looks for the ignore annotation on the object, then on its pod template.
func (s *suppressor) annotation(finding *lint.Finding) *lint.Suppression {
	workload := s.workloadOf(finding)
	if workload == nil {
		return nil
	}
	for _, annotation := range workload.annotations {
		ids, reason, _ := strings.Cut(annotation.value, "--")
		if !matchesRule(ids, finding) {
			continue
		}
		reason = cleanReason(reason)
		if reason == "" {
			s.reasonMissing(annotation.location, finding.Target, "the "+lint.IgnoreAnnotation+" annotation",
				"write it after the rule IDs (\"MDL205 -- reason\")")
		}
		return &lint.Suppression{Kind: lint.SuppressedByAnnotation, Reason: reason}
	}
	return nil
}

// workloadOf is the workload a finding was made on: of the workloads of
// its target's name, the one in the finding's file, else the one whose
// file is nearest to it (a runtime or ConfigMap beside its workload).
func (s *suppressor) workloadOf(finding *lint.Finding) *ignoresOf {
	candidates := s.ignores[finding.Target]
	if len(candidates) <= 1 {
		if len(candidates) == 0 {
			return nil
		}
		return &candidates[0]
	}
	var best *ignoresOf
	bestShared := -1
	for i := range candidates {
		if shared := sharedDirs(candidates[i].file, finding.Location.File); shared > bestShared {
			best, bestShared = &candidates[i], shared
		}
	}
	return best
}

// sharedDirs counts the leading path elements two files share, the file
// name included, so a file shares most with itself.
func sharedDirs(a, b string) int {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	n := 0
	for n < len(as) && n < len(bs) && as[n] == bs[n] {
		n++
	}
	return n
}

// asString is a plain value that is a string, else "" (an annotation of
// another type, which the API server rejects).
func asString(value any) string {
	s, _ := value.(string)
	return s
}

// configured looks for a matching, unexpired ignore entry in the config file.
func (s *suppressor) configured(finding *lint.Finding) *lint.Suppression {
	for i, ignore := range s.config.Ignore {
		if !matchesRule(ignore.Rule, finding) {
			continue
		}
		if ignore.Object != "" && !globMatch(ignore.Object, finding.Target) && !globMatch(ignore.Object, targetObject(finding.Target)) {
			continue
		}
		if ignore.Path != "" && !pathMatches(ignore.Path, finding.Location.File) &&
			!pathMatches(ignore.Path, s.relativeToConfig(finding.Location.File)) {
			continue
		}
		if s.hasExpired(ignore.Expires) {
			s.expiredEntry(i, finding.Target)
			continue
		}
		if strings.TrimSpace(ignore.Reason) == "" {
			s.reasonMissing(lint.Location{File: s.config.Path, Path: fmt.Sprintf("ignore[%d]", i)}, finding.Target,
				"the config ignore entry", "add a reason: field to it")
		}
		return &lint.Suppression{Kind: lint.SuppressedByConfig, Reason: strings.TrimSpace(ignore.Reason)}
	}
	return nil
}

// hasExpired reports whether an ignore entry's expires: date is past. The
// config loader refuses a date that does not parse; one that reaches here
// anyway (a config made in code) counts as expired, so that it cannot
// suppress for ever.
func (s *suppressor) hasExpired(expires string) bool {
	if expires == "" || s.now == "" {
		return false
	}
	last, err := time.Parse(config.ExpiresDate, expires)
	if err != nil {
		return true
	}
	today, err := time.Parse(config.ExpiresDate, s.now)
	return err == nil && today.After(last)
}

// expiredEntry records an MDL003 finding for the config ignore entry i,
// which no longer suppresses a finding of target.
func (s *suppressor) expiredEntry(i int, target string) {
	if _, seen := s.expired[i]; seen || s.expiredRule == nil {
		return
	}
	ignore := s.config.Ignore[i]
	what := "rule " + ignore.Rule
	if ignore.Object != "" {
		what += ", object " + ignore.Object
	}
	if ignore.Path != "" {
		what += ", path " + ignore.Path
	}
	s.expired[i] = lint.Finding{
		RuleID: s.expiredRule.ID, RuleName: s.expiredRule.Name, Severity: s.expiredRule.Severity,
		Message: fmt.Sprintf("the config ignore entry ignore[%d] (%s) expired on %s, so the findings it matched are reported again: "+
			"fix them, or give the entry a later expires: date if the reason still holds", i, what, ignore.Expires),
		Location: lint.Location{File: s.config.Path, Line: ignore.Line, Path: fmt.Sprintf("ignore[%d].expires", i)}, Target: target,
	}
}

// matchesRule reports whether a comma-separated list of rule IDs or names
// (or "*", "all") covers the finding.
func matchesRule(list string, finding *lint.Finding) bool {
	for _, item := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' }) {
		if item == "*" || strings.EqualFold(item, "all") || strings.EqualFold(item, finding.RuleID) || item == finding.RuleName {
			return true
		}
	}
	return false
}

func cleanReason(reason string) string {
	return strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(reason), "-—:"))
}

// targetObject drops the " (component)" suffix of a target name.
func targetObject(target string) string {
	if i := strings.Index(target, " ("); i >= 0 {
		return target[:i]
	}
	return target
}

func globMatch(pattern, name string) bool {
	matched, err := path.Match(pattern, name)
	return err == nil && matched
}

func pathMatches(pattern, file string) bool {
	pattern = strings.TrimSuffix(path.Clean(pattern), "/")
	return file == pattern || globMatch(pattern, file) || strings.HasPrefix(file, pattern+"/")
}

// relativeToConfig names a file relative to the config file's directory,
// where users write ignore paths from.
func (s *suppressor) relativeToConfig(file string) string {
	if s.config.Path == "" {
		return file
	}
	absolute, err := filepath.Abs(filepath.FromSlash(file))
	if err != nil {
		return file
	}
	configDir, err := filepath.Abs(filepath.Dir(s.config.Path))
	if err != nil {
		return file
	}
	relative, err := filepath.Rel(configDir, absolute)
	if err != nil || strings.HasPrefix(relative, "..") {
		return file
	}
	return filepath.ToSlash(relative)
}
