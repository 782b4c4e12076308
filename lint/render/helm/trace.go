package helm

import (
	"path"
	"sort"
	"strings"

	"github.com/modellint/modellint/lint/manifest"
)

// traceLines renders the chart again with marked templates and attributes
// every rendered line of every template to the template line that wrote it.
// Helpers are marked too, so a field written by an include points into
// _helpers.tpl; a template whose output changes shape when helpers are marked
// (a helper's output compared with eq, say) is traced with only the templates
// themselves marked, and failing that not at all. The marks of lines in a
// range over values carry the element's key, which the template writes;
// should that fail to render (a range over an integer takes one variable),
// the marks are tried without keys.
func (r *renderer) traceLines(rendered map[string]string) map[string][]lineOrigin {
	origins := map[string][]lineOrigin{}
	for _, mode := range []markMode{{helpers: true, keys: true}, {keys: true}, {helpers: true}, {}} {
		if traced(origins, rendered) {
			break
		}
		marked, err := r.renderMarked(mode)
		if err != nil {
			continue
		}
		for name, text := range rendered {
			if origins[name] != nil {
				continue
			}
			origins[name] = readMarks(marked[name], text, r.hasLiteral)
		}
	}
	return origins
}

// traced reports whether every rendered template has its line origins.
func traced(origins map[string][]lineOrigin, rendered map[string]string) bool {
	for name := range rendered {
		if origins[name] == nil {
			return false
		}
	}
	return true
}

// markMode is what a marked render marks: helpers' lines too, and the
// elements of ranges over values.
type markMode struct{ helpers, keys bool }

// renderMarked renders with every template line marked, then restores the
// templates.
func (r *renderer) renderMarked(mode markMode) (map[string]string, error) {
	for _, template := range r.byIndex {
		if mode.helpers || !strings.HasPrefix(path.Base(template.file.Name), "_") {
			var ranges map[int]rangeKey
			if mode.keys {
				ranges = template.rangesOver()
			}
			template.file.Data = []byte(markTemplateKeys(string(template.source), template.index, ranges))
		}
	}
	defer func() {
		for _, template := range r.byIndex {
			template.file.Data = template.source
		}
	}()
	rendered, err := r.engineRender()
	if err != nil {
		return nil, r.renderError(err)
	}
	return rendered, nil
}

func (r *renderer) hasLiteral(file, line int) bool {
	return strings.TrimSpace(r.byIndex[file].literalAt(line)) != ""
}

func (t *templateFile) parse() {
	if !t.parsed {
		t.lines = strings.Split(string(t.source), "\n")
		t.literal = literalLines(string(t.source))
		t.actions, t.ranges, t.args, t.chosen = valueActions(t.name, string(t.source))
		t.passes = passedThrough(t.name, string(t.source))
		t.calls = helperCalls(t.name, string(t.source))
		t.parsed = true
	}
}

// literalAt is the template's own text on a line, without its actions.
func (t *templateFile) literalAt(line int) string {
	t.parse()
	if line < 1 || line >= len(t.literal) {
		return ""
	}
	return t.literal[line]
}

// lastCall is the last of calls after the line from and up to the line to
// (to 0: to the end).
func lastCall(calls []int, from, to int) int {
	line := 0
	for _, call := range calls {
		if call > from && (to == 0 || call <= to) {
			line = call
		}
	}
	return line
}

// callsAt are the lines that call a helper.
func (t *templateFile) callsAt() []int {
	t.parse()
	return t.calls
}

// helperPassing is the values path the helper named passes through
// unchanged, "" when it writes anything else (see passedThrough).
func (r *renderer) helperPassing(helper string) string {
	for _, template := range r.byIndex {
		template.parse()
		if path, ok := template.passes[helper]; ok {
			return path
		}
	}
	return ""
}

// argsAt is the values path a line passes to the helper it includes.
func (t *templateFile) argsAt(line int) (string, bool) {
	t.parse()
	arg, ok := t.args[line]
	return arg, ok
}

// chosenBy is the values path (through the helper's argument) of the
// condition that chose to write a helper's line, "" for none (see
// valueActions).
func (t *templateFile) chosenBy(line int) string {
	t.parse()
	return t.chosen[line]
}

// rangesOver are the template's ranges over values (see valueActions).
func (t *templateFile) rangesOver() map[int]rangeKey {
	t.parse()
	return t.ranges
}

// actionsAt are the values paths of the output actions on a line.
func (t *templateFile) actionsAt(line int) []string {
	t.parse()
	return t.actions[line]
}

// indentAt is the indentation of a template line.
func (t *templateFile) indentAt(line int) int {
	t.parse()
	if line < 1 || line > len(t.lines) {
		return 0
	}
	text := t.lines[line-1]
	return len(text) - len(strings.TrimLeft(text, " \t"))
}

// relocate moves the fields of a rendered template's documents to where they
// were written: the template (or helper) line, or the values-file line when
// the line only passes a value through.
func (r *renderer) relocate(file *manifest.File, template *templateFile, rendered string, origins []lineOrigin) {
	lines := strings.Split(rendered, "\n")
	ofKind := map[string]int{} // documents of each kind seen so far
	var callLines []int
	if origins != nil {
		callLines = helperCallLines(template, origins)
	}
	for _, doc := range file.Documents() {
		if origins == nil {
			kind, _ := manifest.ValueAt(doc.Plain(), "kind")
			kindText, _ := kind.(string)
			line := kindLine(template.source, kindText, ofKind[kindText])
			ofKind[kindText]++
			doc.Relocate(func(string, manifest.Position) (string, manifest.Position, bool) {
				return "", manifest.Position{Line: line, Column: 1}, true
			})
			continue
		}
		trace := newDocTrace(r, template, doc, origins, lines, callLines)
		doc.Relocate(trace.placed)
		doc.SetCalls(trace.calls)
	}
}

// kindLine finds where the n-th document of a kind starts in a template
// that could not be traced: the n-th "kind: KIND" line, or the last one when
// a range writes more documents than the template has such lines (each
// instance of a ranged object then starts on the line that writes it).
func kindLine(source []byte, kind string, n int) int {
	var lines, templated []int // "kind: KIND" lines; "kind: {{ … }}" lines
	for i, line := range strings.Split(string(source), "\n") {
		value, found := strings.CutPrefix(strings.TrimSpace(line), "kind:")
		if !found {
			continue
		}
		switch value = strings.Trim(strings.TrimSpace(value), `"'`); {
		case value == kind:
			lines = append(lines, i+1)
		case strings.Contains(value, "{{"):
			templated = append(templated, i+1)
		}
	}
	if len(lines) == 0 {
		lines = templated
	}
	switch {
	case len(lines) == 0:
		return 1
	case n < len(lines):
		return lines[n]
	}
	return lines[len(lines)-1]
}

// docTrace relocates the fields of one rendered document.
type docTrace struct {
	r *renderer
	// self is the template rendered; lines another file wrote came from a
	// helper it called.
	self    *templateFile
	doc     *manifest.Document
	origins []lineOrigin
	lines   []string // the rendered text
	// ordered are the document's field paths by rendered position.
	ordered []fieldAt
	// runRoots caches the field path under which a run of generated lines
	// sits (see runRoot).
	runRoots map[int]*string
	// calls are the template lines that called the helper a field was
	// placed in, by field path; callLines are those calls by rendered line
	// (see helperCallLines).
	calls     map[string]manifest.Call
	callLines []int
	// value is the chart value at whose line where last placed a field,
	// nil when it placed the field on no values line.
	value *valueAt
}

// valueAt is a value of a chart, by its path in .Values, and where its
// files are.
type valueAt struct {
	lookup *valuesLookup
	path   string
}

type fieldAt struct {
	path string
	pos  manifest.Position
}

func newDocTrace(r *renderer, self *templateFile, doc *manifest.Document, origins []lineOrigin, lines []string, callLines []int) *docTrace {
	t := &docTrace{r: r, self: self, doc: doc, origins: origins, lines: lines, runRoots: map[int]*string{},
		calls: map[string]manifest.Call{}, callLines: callLines}
	for path, pos := range doc.Fields() {
		t.ordered = append(t.ordered, fieldAt{path, pos})
	}
	sort.Slice(t.ordered, func(i, j int) bool {
		a, b := t.ordered[i], t.ordered[j]
		if a.pos.Line != b.pos.Line {
			return a.pos.Line < b.pos.Line
		}
		if a.pos.Column != b.pos.Column {
			return a.pos.Column < b.pos.Column
		}
		if len(a.path) != len(b.path) {
			return len(a.path) < len(b.path)
		}
		return a.path < b.path
	})
	return t
}

func (t *docTrace) origin(line int) lineOrigin {
	if line < 1 || line > len(t.origins) {
		return lineOrigin{file: -1, lastFile: -1, secondFile: -1}
	}
	return t.origins[line-1]
}

// placed is where a field was written, or, for a field of a packaged
// dependency of a chart directory (a .tgz under its charts/ that `helm
// dependency build` left), the line of the directory chart where a user
// changes it: a line inside the archive cannot be edited or hold an ignore
// comment, and code-scanning reports drop a location in no file of the
// repository. A value the dependency's values.yaml gives is placed on the
// parent's values line that sets it, or on the key under which it would be
// set (`worker:`); anything else on the dependency's entry in the parent's
// Chart.yaml. The line in the archive is kept as the field's related line.
func (t *docTrace) placed(path string, rendered manifest.Position) (string, manifest.Position, bool) {
	t.value = nil
	file, pos, ok := t.where(path, rendered)
	if !ok || t.self.dependency == nil {
		return file, pos, ok
	}
	if file == "" {
		file = t.self.display
	}
	if !t.r.archivedNames[file] {
		return file, pos, ok
	}
	t.calls[path] = manifest.Call{File: file, Position: pos, Note: t.self.dependency.note()}
	if t.value != nil {
		if file, pos, ok := t.value.lookup.editable(t.value.path); ok {
			return file, pos, true
		}
	}
	entry := t.r.dependencyEntry(t.self.dependency, t.self.dependencyName)
	return entry.file, entry.pos, true
}

func (t *docTrace) where(path string, rendered manifest.Position) (string, manifest.Position, bool) {
	origin := t.origin(rendered.Line)
	if origin.file < 0 {
		return "", manifest.Position{}, false
	}
	template := t.r.byIndex[origin.file]
	if origin.generated && origin.lastFile >= 0 && t.r.hasLiteral(origin.lastFile, origin.lastLine) {
		// A helper's one-line output after the key the including line
		// writes (`image: {{ include "x.image" . }}`): the including line
		// passes the value through, or not.
		inline := lineOrigin{file: origin.lastFile, line: origin.lastLine, lastFile: -1, secondFile: -1, keys: origin.secondKeys}
		if file, pos, ok := t.passedValue(path, rendered, inline); ok {
			return file, pos, true
		}
	}
	if !origin.generated {
		if file, pos, ok := t.passedValue(path, rendered, origin); ok {
			return file, pos, true
		}
		if file, pos, ok := t.rangeElement(template, origin); ok {
			return file, pos, true
		}
		if file, pos, ok := t.packagedHelper(template, rendered.Line); ok {
			return file, pos, true
		}
		renderedLine := t.lines[rendered.Line-1]
		renderedIndent := len(renderedLine) - len(strings.TrimLeft(renderedLine, " "))
		pos := manifest.Position{Line: origin.line, Column: max(rendered.Column-renderedIndent+template.indentAt(origin.line), 1)}
		if file, pos, ok := t.rangedHelper(path, template, rendered.Line, pos); ok {
			return file, pos, true
		}
		t.recordCall(path, rendered.Line, origin)
		return template.display, pos, true
	}
	if file, pos, ok := t.generatedValue(path, rendered.Line, origin); ok {
		return file, pos, true
	}
	if file, pos, ok := t.packagedHelper(template, rendered.Line); ok {
		return file, pos, true
	}
	pos := manifest.Position{Line: origin.line, Column: template.indentAt(origin.line) + 1}
	if file, pos, ok := t.rangedHelper(path, template, rendered.Line, pos); ok {
		return file, pos, true
	}
	t.recordCall(path, rendered.Line, origin)
	return template.display, pos, true
}

// rangeElement places a field whose template line reads only fields of one
// element of a range over values (every action reads one) but does not pass
// one through (`image: "{{ .repository }}:{{ .tag }}"`, or a field the
// element leaves to a default) on that element's line in the values file:
// every element shares the template line, and the element is where a user
// changes this object's field.
func (t *docTrace) rangeElement(template *templateFile, origin lineOrigin) (string, manifest.Position, bool) {
	element := ""
	for _, action := range template.actionsAt(origin.line) {
		end := elementEnd(action)
		if end == 0 || (element != "" && element != action[:end]) {
			return "", manifest.Position{}, false
		}
		element = action[:end]
	}
	if element == "" {
		return "", manifest.Position{}, false
	}
	path, ok := resolveElements(element, origin.keys)
	if !ok {
		return "", manifest.Position{}, false
	}
	if file, pos, ok := t.self.values.locate(path); ok {
		t.value = &valueAt{t.self.values, path}
		return file, pos, true
	}
	if file, pos, ok := template.values.locate(path); ok {
		t.value = &valueAt{template.values, path}
		return file, pos, true
	}
	return "", manifest.Position{}, false
}

// rangedHelper places a field that a helper wrote by itself, included with
// an element of a range over values (`include "stack.resources" $spec` in
// `range $spec := .Values.modelSpec`), in that element in the values file
// when the element chose the helper's line: the line is in a branch of an
// if or with on the helper's argument (`limits:` after `{{- if
// .limitMemory }}` … `{{- else }}`). It lands on the value the condition
// reads when the element has it, else on the value the helper was given,
// else on the element, where the value would be added. The elements'
// objects share the helper's line, and the element is what made this
// object's differ; a line the helper writes for every element, like one the
// ranged template writes itself, stays where it is. The helper's line, at
// helperPos, is kept as the field's related line.
func (t *docTrace) rangedHelper(path string, helper *templateFile, renderedLine int, helperPos manifest.Position) (string, manifest.Position, bool) {
	condition := helper.chosenBy(helperPos.Line)
	if helper == t.self || condition == "" {
		return "", manifest.Position{}, false
	}
	arg, keys, ok := t.includedWith(renderedLine)
	if !ok {
		return "", manifest.Position{}, false
	}
	end := elementEnd(arg)
	if end == 0 {
		return "", manifest.Position{}, false
	}
	for _, given := range []string{arg + strings.TrimPrefix(condition, helperArg), arg, arg[:end]} {
		resolved, ok := resolveElements(given, keys)
		if !ok {
			return "", manifest.Position{}, false
		}
		if file, pos, ok := t.self.values.locate(resolved); ok {
			t.value = &valueAt{t.self.values, resolved}
			t.calls[path] = manifest.Call{File: helper.display, Position: helperPos, Note: manifest.HelperLine}
			return file, pos, true
		}
	}
	return "", manifest.Position{}, false
}

// elementEnd is where the last range placeholder of a values path ends,
// 0 for a path through no range's element.
func elementEnd(path string) int {
	end := 0
	for {
		m := elementPlaceholder.FindStringIndex(path[end:])
		if m == nil {
			return end
		}
		end += m[1]
	}
}

// includedWith finds the values path a helper's rendered line was given as
// its argument: the including line of the template (see helperCallLines)
// and the range keys of the template's next mark, which ends the helper's
// output (its second on the helper's last line).
func (t *docTrace) includedWith(renderedLine int) (string, map[int]any, bool) {
	if renderedLine < 1 || renderedLine > len(t.callLines) || t.callLines[renderedLine-1] == 0 {
		return "", nil, false
	}
	arg, ok := t.self.argsAt(t.callLines[renderedLine-1])
	if !ok {
		return "", nil, false
	}
	for _, origin := range t.origins[renderedLine-1:] {
		switch {
		case origin.file == t.self.index:
			return arg, origin.keys, true
		case origin.secondFile == t.self.index:
			return arg, origin.secondKeys, true
		}
	}
	return "", nil, false
}

// packagedHelper places a field that a helper of a packaged chart (a library
// chart's .tgz under charts/) wrote by itself on the line of the chart's own
// template that includes the helper. That line is the one a user can edit,
// pass other values to or put an ignore comment on; a line inside the
// archive is not, and code-scanning reports drop a location in no file of
// the repository.
func (t *docTrace) packagedHelper(helper *templateFile, renderedLine int) (string, manifest.Position, bool) {
	if !helper.packaged || t.self.packaged || helper == t.self || renderedLine < 1 || renderedLine > len(t.callLines) {
		return "", manifest.Position{}, false
	}
	line := t.callLines[renderedLine-1]
	if line == 0 {
		return "", manifest.Position{}, false
	}
	return t.self.display, manifest.Position{Line: line, Column: t.self.indentAt(line) + 1}, true
}

// recordCall notes, for a field placed on a helper's line, the line of the
// rendered template that called the helper.
func (t *docTrace) recordCall(path string, renderedLine int, origin lineOrigin) {
	if origin.file == t.self.index {
		return
	}
	if renderedLine < 1 || renderedLine > len(t.callLines) {
		return
	}
	if line := t.callLines[renderedLine-1]; line > 0 {
		t.calls[path] = manifest.Call{File: t.self.display,
			Position: manifest.Position{Line: line, Column: t.self.indentAt(line) + 1}}
	}
}

// helperCallLines finds, for every rendered line, the template line whose
// helper call wrote it (0 for none): the helper's output sits between the
// marks of two lines of the template itself, the one before the call and
// the one that ends it, and the call is the last helper call on the lines
// between (in a range, the lines between may wrap around to the top of its
// body). Two passes over the render, so a template that is one include of a
// long helper costs no more than its lines.
func helperCallLines(self *templateFile, origins []lineOrigin) []int {
	// after is the template line whose mark ends the line or comes next: a
	// helper's last line ends with the including line's mark.
	after := make([]int, len(origins))
	next := 0
	for i := len(origins) - 1; i >= 0; i-- {
		switch origin := origins[i]; {
		case origin.lastFile == self.index:
			next = origin.lastLine
		case origin.file == self.index:
			next = origin.line
		}
		after[i] = next
	}
	calls := self.callsAt()
	lines := make([]int, len(origins))
	before := 0 // the template line whose mark came last before the line
	for i, origin := range origins {
		if origin.file != self.index {
			if after[i] == 0 || after[i] > before {
				lines[i] = lastCall(calls, before, after[i])
			} else if lines[i] = lastCall(calls, 0, after[i]); lines[i] == 0 { // the range started over
				lines[i] = lastCall(calls, before, 0)
			}
		}
		switch {
		case origin.file == self.index:
			before = origin.line
		case origin.lastFile == self.index:
			before = origin.lastLine
		}
	}
	return lines
}

// passedValue places a field written on a template line of its own at the
// values-file line its value came from, when the template only passes the
// value through: `memory: {{ .Values.memory }}` on the key's line, or
// `resources:` followed by `{{- toYaml .Values.resources | nindent 12 }}`.
// The values file is where a user changes such a field.
func (t *docTrace) passedValue(path string, rendered manifest.Position, origin lineOrigin) (string, manifest.Position, bool) {
	if path == "" {
		return "", manifest.Position{}, false
	}
	value, _ := manifest.ValueAt(t.doc.Plain(), path)
	template := t.r.byIndex[origin.file]
	valueLines := t.valueLines(path, rendered.Line)
	if len(valueLines) == 0 {
		actions := template.actionsAt(origin.line)
		if len(actions) != 1 || actions[0] == "" || !keyOnly(template.literalAt(origin.line)) {
			return "", manifest.Position{}, false
		}
		return t.findValue(template, actions[0], rendered.Line, origin.keys, value)
	}
	first := t.origin(valueLines[0])
	if first.file < 0 {
		// Lines no mark accounts for: none can be trusted to hold the value.
		return "", manifest.Position{}, false
	}
	for _, line := range valueLines {
		if other := t.origin(line); !other.generated || other.file != first.file || other.line != first.line {
			return "", manifest.Position{}, false
		}
	}
	generator := t.r.byIndex[first.file]
	actions := generator.actionsAt(first.line)
	if len(actions) != 1 || actions[0] == "" {
		return "", manifest.Position{}, false
	}
	return t.findValue(generator, actions[0], valueLines[0], first.keys, value)
}

// findValue finds where the value a template line read at the values path
// was written, its range elements resolved by the keys of the rendered line.
// A helper reads the values of the context it is given, nearly always the
// including template's, so those are looked up first: a library chart's
// helpers read the parent chart's values, not the library's.
func (t *docTrace) findValue(template *templateFile, path string, renderedLine int, keys map[int]any, value any) (string, manifest.Position, bool) {
	if helper, ok := strings.CutPrefix(path, includePrefix); ok {
		if path = t.r.helperPassing(helper); path == "" {
			return "", manifest.Position{}, false
		}
	}
	if rest, ok := strings.CutPrefix(path, helperArg); ok {
		// The helper's argument: what the including line passed, in the
		// element of the range that line was rendered for.
		arg, argKeys, ok := t.includedWith(renderedLine)
		if !ok {
			return "", manifest.Position{}, false
		}
		path, keys = arg+rest, argKeys
	}
	path, ok := resolveElements(path, keys)
	if !ok {
		return "", manifest.Position{}, false
	}
	if file, pos, ok := t.self.values.find(path, value); ok {
		t.value = &valueAt{t.self.values, path}
		return file, pos, true
	}
	if template.values == t.self.values {
		return "", manifest.Position{}, false
	}
	if file, pos, ok := template.values.find(path, value); ok {
		t.value = &valueAt{template.values, path}
		return file, pos, true
	}
	return "", manifest.Position{}, false
}

// keyOnly reports whether a template line's own text is just a key (or a
// sequence dash), so that its one action writes the whole value.
func keyOnly(literal string) bool {
	text := strings.TrimSpace(strings.NewReplacer(`"`, "", "'", "").Replace(literal))
	text = strings.TrimSpace(strings.TrimPrefix(text, "-"))
	return text == "" || (strings.HasSuffix(text, ":") && !strings.ContainsAny(strings.TrimSuffix(text, ":"), ": "))
}

// valueLines are the rendered lines after a field's key that hold its value,
// without blank and comment lines.
func (t *docTrace) valueLines(path string, keyLine int) []int {
	end := len(t.lines) + 1
	for _, field := range t.ordered {
		if field.pos.Line > keyLine && !isDescendant(field.path, path) {
			end = field.pos.Line
			break
		}
	}
	var lines []int
	for line := keyLine + 1; line < end; line++ {
		text := strings.TrimSpace(t.lines[line-1])
		if text == "---" || strings.HasPrefix(text, "--- ") {
			break
		}
		if text != "" && !strings.HasPrefix(text, "#") {
			lines = append(lines, line)
		}
	}
	return lines
}

func isDescendant(path, ancestor string) bool {
	return ancestor == "" || strings.HasPrefix(path, ancestor+".") || strings.HasPrefix(path, ancestor+"[")
}

// generatedValue places a field an action generated (`toYaml .Values.x`)
// at its line in the values file.
func (t *docTrace) generatedValue(path string, renderedLine int, origin lineOrigin) (string, manifest.Position, bool) {
	template := t.r.byIndex[origin.file]
	valuesPath, found := "", 0
	for _, action := range template.actionsAt(origin.line) {
		if action != "" {
			valuesPath, found = action, found+1
		}
	}
	if found != 1 {
		return "", manifest.Position{}, false
	}
	root := t.runRoot(origin.run)
	if root == nil || (path != *root && !isDescendant(path, *root)) {
		return "", manifest.Position{}, false
	}
	value, _ := manifest.ValueAt(t.doc.Plain(), path)
	return t.findValue(template, manifest.ConcatPath(valuesPath, strings.TrimPrefix(path, *root)), renderedLine, origin.keys, value)
}

// runRoot is the field path a run of generated lines was written under: the
// parent of its shallowest fields ("...resources" for the lines of
// `toYaml .Values.resources`). Field paths below it are the value's own.
func (t *docTrace) runRoot(run int) *string {
	if root, ok := t.runRoots[run]; ok {
		return root
	}
	var root *string
	depth := -1
	for _, field := range t.ordered {
		origin := t.origin(field.pos.Line)
		if origin.run != run || !origin.generated {
			continue
		}
		if d := len(manifest.SplitPath(field.path)); depth < 0 || d < depth {
			parent := manifest.ParentPath(field.path)
			root, depth = &parent, d
		}
	}
	t.runRoots[run] = root
	return root
}
