package helm

import (
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"

	"github.com/modellint/modellint/internal/lazyregexp"
	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/render/charts"

	"github.com/modellint/modellint/internal/message"
)

// capabilities are .Capabilities as `helm template --kube-version V
// --api-versions A` fills them.
func capabilities(options charts.Options) (*chartutil.Capabilities, error) {
	caps := chartutil.DefaultCapabilities.Copy()
	version := options.KubeVersion
	if version == "" {
		version = charts.DefaultKubeVersion
	}
	kubeVersion, err := chartutil.ParseKubeVersion(version)
	if err != nil {
		return nil, fmt.Errorf("--kube-version %s: %w", message.Quote(version), err)
	}
	caps.KubeVersion = *kubeVersion
	caps.APIVersions = append(caps.APIVersions, options.APIVersions...)
	return caps, nil
}

// Render renders the chart at chartPath (a directory or packaged .tgz) in
// this process, as charts.Render does in the renderer.
func Render(chartPath, display string, options charts.Options) ([]*manifest.File, error) {
	templates, values, err := renderTemplates(chartPath, display, options)
	if err != nil {
		return nil, err
	}
	var files []*manifest.File
	for _, template := range templates {
		if charts.Kept(template.file, options) {
			files = append(files, template.file)
		}
	}
	return append(files, values...), nil
}

// renderedTemplate is one template's output, parsed and relocated.
type renderedTemplate struct {
	file *manifest.File
	text []byte
}

// renderTemplates renders and traces the chart: each template that wrote
// anything, before test hooks are dropped, then the values files fields
// may be placed in, as files without objects. Errors are one line, name
// the file, and carry Helm's own message.
func renderTemplates(chartPath, display string, options charts.Options) ([]renderedTemplate, []*manifest.File, error) {
	top, err := loadChart(chartPath, display)
	if err != nil {
		return nil, nil, err
	}
	disk := chartPath
	if info, err := os.Stat(chartPath); err == nil && !info.IsDir() {
		disk = ""
	}
	return renderChart(top, display, disk, options)
}

// renderChart renders and traces a loaded chart (see renderTemplates); disk
// is its directory, "" for a packaged chart.
func renderChart(top *chart.Chart, display, disk string, options charts.Options) ([]renderedTemplate, []*manifest.File, error) {
	r := &renderer{display: display, options: options, names: map[*chart.File]string{}, packaged: map[*chart.File]bool{},
		archived: map[*chart.File]*packagedDependency{}, archivedNames: map[string]bool{}, entries: map[dependencyName]dependencyEntry{}}
	topDisplay := display
	if disk == "" {
		// Files of a packaged chart are named inside the archive: "tfs-0.1.0.tgz/tfs/...".
		topDisplay = path.Join(display, top.Name())
	}
	r.nameFiles(top, topDisplay, disk, nil)
	if err := checkDependencies(top, topDisplay); err != nil {
		return nil, nil, err
	}
	values, userFiles, err := userValues(options.ValuesFiles, options.Set)
	if err != nil {
		return nil, nil, err
	}
	r.userFiles, r.set = userFiles, setPaths(options.Set)
	if err := chartutil.ProcessDependenciesWithMerge(top, values); err != nil {
		return nil, nil, fmt.Errorf("%s: %s", display, oneLine(err.Error()))
	}
	r.top, r.values = top, values
	r.collectTemplates(top)

	rendered, err := r.render()
	if err != nil {
		return nil, nil, err
	}
	origins := r.traceLines(rendered)

	var templates []renderedTemplate
	for _, name := range slices.Sorted(maps.Keys(rendered)) {
		text := rendered[name]
		template := r.templates[name]
		if template == nil || strings.HasPrefix(path.Base(name), "_") || strings.HasSuffix(name, "NOTES.txt") || strings.TrimSpace(text) == "" {
			continue
		}
		file, err := manifest.LoadRendered(template.display, template.source, []byte(text))
		if err != nil {
			return nil, nil, r.yamlError(template, origins[name], err)
		}
		r.relocate(file, template, text, origins[name])
		templates = append(templates, renderedTemplate{file: file, text: []byte(text)})
	}
	crds, err := r.crdFiles()
	if err != nil {
		return nil, nil, err
	}
	return append(templates, crds...), r.valuesFiles(), nil
}

// crdFiles are the files of the chart's and its enabled dependencies'
// crds/, which helm install applies before the templates (Helm does not
// template them): linted with the chart, their CRDs' schemas judge its
// custom objects instead of the types modellint bundles.
func (r *renderer) crdFiles() ([]renderedTemplate, error) {
	var files []renderedTemplate
	for _, crd := range r.top.CRDObjects() {
		display := r.names[crd.File]
		if display == "" {
			display = path.Join(r.display, crd.Filename)
		}
		file, err := manifest.LoadRendered(display, crd.File.Data, crd.File.Data)
		if err != nil {
			return nil, err
		}
		files = append(files, renderedTemplate{file: file, text: crd.File.Data})
	}
	return files, nil
}

// valuesFiles are the values files fields may be placed in, as files without
// objects: an inline ignore comment there is read like one in a manifest.
func (r *renderer) valuesFiles() []*manifest.File {
	var files []*manifest.File
	seen := map[string]bool{}
	for _, template := range r.byIndex {
		for _, source := range template.values.sources {
			if !seen[source.file.path] {
				seen[source.file.path] = true
				files = append(files, &manifest.File{Path: source.file.path, Source: source.file.source})
			}
		}
	}
	// The Chart.yaml files that fields of packaged dependencies were placed in.
	var listings []*manifest.File
	for _, entry := range r.entries {
		if entry.source != nil && !seen[entry.file] {
			seen[entry.file] = true
			listings = append(listings, &manifest.File{Path: entry.file, Source: entry.source})
		}
	}
	slices.SortFunc(listings, func(a, b *manifest.File) int { return strings.Compare(a.Path, b.Path) })
	return append(files, listings...)
}

// renderer holds one chart's rendering state.
type renderer struct {
	display   string
	options   charts.Options
	top       *chart.Chart
	values    map[string]any
	userFiles []*valuesFile
	set       map[string]bool
	// names are the paths users see for the chart's files (templates,
	// values.yaml), found before dependencies are processed: aliases copy a
	// chart but share its files.
	names map[*chart.File]string
	// packaged are the templates of charts read from an archive.
	packaged map[*chart.File]bool
	// archived are the templates and values.yaml of the dependencies a
	// chart directory holds packaged, by file and by the names users see
	// (see packagedDependency); entries are where the directory's
	// Chart.yaml lists them, found once for each.
	archived      map[*chart.File]*packagedDependency
	archivedNames map[string]bool
	entries       map[dependencyName]dependencyEntry
	// templates are the rendered chart's templates by Helm's template name
	// ("tfs/charts/sub/templates/deployment.yaml"); byIndex numbers them for marks.
	templates map[string]*templateFile
	byIndex   []*templateFile
}

// templateFile is one template as users see it, with what tracing needs.
type templateFile struct {
	index   int
	name    string
	display string
	source  []byte
	file    *chart.File
	values  *valuesLookup
	// packaged is true for a template read from an archive, which users
	// cannot edit in place.
	packaged bool
	// dependency is the packaged dependency of a chart directory the
	// template is in, nil for none; dependencyName is the name that
	// dependency has there (its alias, or its chart's name).
	dependency     *packagedDependency
	dependencyName string
	// lines, literal and actions are per line, computed on first use.
	lines   []string
	literal []string
	actions map[int][]string
	ranges  map[int]rangeKey  // ranges over values, by their pipeline's offset
	args    map[int]string    // what lines that include a helper pass it (see includeArg)
	chosen  map[int]string    // lines of a helper its argument chose to write (see valueActions)
	passes  map[string]string // helpers that pass one value through (see passedThrough)
	calls   []int             // lines that call a helper
	parsed  bool
}

// packagedDependency is a dependency packaged under the charts/ of a chart
// directory (as `helm dependency build` leaves it), or a chart inside one.
// Its files cannot be edited, so the fields they write are placed on the
// lines of the directory chart that configure it: its values under the
// dependency's name, else its entry in Chart.yaml (see docTrace.placed).
type packagedDependency struct {
	// archive is the .tgz as users name it ("chart/charts/worker-0.2.0.tgz"),
	// chart the name of the chart packaged in it.
	archive, chart string
	// parent is the chart directory whose charts/ holds the archive.
	parent        *chart.Chart
	parentDisplay string
}

// note names, for a field placed in the parent, the line in the archive
// that wrote it.
func (d *packagedDependency) note() string {
	return "the line inside the packaged dependency " + path.Base(d.archive) + " that writes it"
}

// dependencyName is a packaged dependency under the name its parent gives it.
type dependencyName struct {
	dependency *packagedDependency
	name       string
}

// dependencyEntry is where the parent's Chart.yaml (or requirements.yaml)
// lists a dependency, and that file's text; the archive itself, with no
// line, when neither lists it.
type dependencyEntry struct {
	file   string
	pos    manifest.Position
	source []byte
}

// nameFiles records the user-facing path of every template, values.yaml and
// crds/ file of the chart and its dependencies. disk is the chart's
// directory, "" inside an archive; in is the packaged dependency of a chart
// directory the chart is or is in, nil for none.
func (r *renderer) nameFiles(c *chart.Chart, display, disk string, in *packagedDependency) {
	for _, file := range c.Templates {
		r.names[file] = path.Join(display, file.Name)
		r.packaged[file] = disk == ""
		r.archive(file, in)
	}
	for _, file := range c.Raw {
		if file.Name == chartutil.ValuesfileName {
			r.names[file] = path.Join(display, file.Name)
			r.archive(file, in)
		}
	}
	for _, file := range c.Files {
		if strings.HasPrefix(file.Name, "crds/") {
			r.names[file] = path.Join(display, file.Name)
		}
	}
	for _, dependency := range c.Dependencies() {
		name := dependency.Name()
		subDisplay, subDisk, subIn := path.Join(display, "charts", name), "", in
		if disk != "" {
			dir := filepath.Join(disk, "charts", name)
			if info, err := os.Stat(dir); err == nil && info.IsDir() {
				subDisk = dir
			} else if archive := findArchive(filepath.Join(disk, "charts"), name); archive != "" {
				subDisplay = path.Join(display, "charts", archive, name)
				subIn = &packagedDependency{archive: path.Join(display, "charts", archive), chart: name, parent: c, parentDisplay: display}
			}
		}
		r.nameFiles(dependency, subDisplay, subDisk, subIn)
	}
}

// archive records that a file is in a packaged dependency of a chart
// directory (in, when not nil).
func (r *renderer) archive(file *chart.File, in *packagedDependency) {
	if in != nil {
		r.archived[file] = in
		r.archivedNames[r.names[file]] = true
	}
}

// archivedChart is the packaged dependency of a chart directory the chart's
// files are in, nil for none.
func (r *renderer) archivedChart(c *chart.Chart) *packagedDependency {
	for _, file := range c.Templates {
		if in := r.archived[file]; in != nil {
			return in
		}
	}
	for _, file := range c.Raw {
		if in := r.archived[file]; in != nil {
			return in
		}
	}
	return nil
}

// dependencyEntry finds where the parent chart lists a packaged dependency
// under a name: the entry of dependencies in its Chart.yaml (requirements.yaml
// for an apiVersion v1 chart) whose alias is that name, or without an alias
// whose chart is; the archive, with no line, when none does.
func (r *renderer) dependencyEntry(dependency *packagedDependency, name string) dependencyEntry {
	key := dependencyName{dependency, name}
	if entry, ok := r.entries[key]; ok {
		return entry
	}
	entry := dependencyEntry{file: dependency.archive}
	for _, listing := range []string{chartutil.ChartfileName, "requirements.yaml"} {
		if found, ok := listedIn(dependency, name, listing); ok {
			entry = found
			break
		}
	}
	r.entries[key] = entry
	return entry
}

// listedIn finds the dependency's entry in a file of its parent chart.
func listedIn(dependency *packagedDependency, name, listing string) (dependencyEntry, bool) {
	for _, file := range dependency.parent.Raw {
		if file.Name != listing {
			continue
		}
		display := path.Join(dependency.parentDisplay, listing)
		docs, err := manifest.ParseDocuments(display, file.Data)
		if err != nil || len(docs) == 0 {
			return dependencyEntry{}, false
		}
		list, _ := manifest.ValueAt(docs[0].Plain(), "dependencies")
		entries, _ := list.([]any)
		for i, item := range entries {
			fields, _ := item.(map[string]any)
			chartName, _ := fields["name"].(string)
			alias, _ := fields["alias"].(string)
			if chartName == dependency.chart && (alias == name || alias == "" && chartName == name) {
				return dependencyEntry{file: display, pos: docs[0].Locate(manifest.IndexPath("dependencies", i)), source: file.Data}, true
			}
		}
	}
	return dependencyEntry{}, false
}

// findArchive finds the packaged dependency "name-1.2.3.tgz" in dir.
func findArchive(dir, name string) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, entry := range entries {
		if strings.HasPrefix(entry.Name(), name+"-") && strings.HasSuffix(entry.Name(), ".tgz") {
			return entry.Name()
		}
	}
	return ""
}

// checkDependencies fails as `helm template` does when Chart.yaml names a
// dependency that is not in charts/: modellint does not download charts.
func checkDependencies(c *chart.Chart, display string) error {
	var missing []string
	for _, want := range c.Metadata.Dependencies {
		found := false
		for _, have := range c.Dependencies() {
			found = found || have.Name() == want.Name
		}
		if !found {
			missing = append(missing, want.Name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s: Chart.yaml depends on %s, missing from charts/ (run `helm dependency build`; modellint does not download charts)",
			path.Join(display, "Chart.yaml"), strings.Join(missing, ", "))
	}
	return nil
}

// collectTemplates indexes the templates Helm will render, after dependency
// processing (disabled dependencies are gone, aliases renamed).
func (r *renderer) collectTemplates(top *chart.Chart) {
	r.templates = map[string]*templateFile{}
	// in is the packaged dependency of a chart directory c is or is in,
	// under the name the directory gives it.
	var walk func(c *chart.Chart, prefix string, lookup *valuesLookup, in dependencyName)
	walk = func(c *chart.Chart, prefix string, parent *valuesLookup, in dependencyName) {
		lookup := &valuesLookup{set: r.set, prefix: prefix}
		for i := len(r.userFiles) - 1; i >= 0; i-- {
			lookup.sources = append(lookup.sources, valuesSource{file: r.userFiles[i], prefix: prefix})
		}
		if parent != nil {
			// The parents' values.yaml override the chart's own, under the
			// chart's name in each.
			for _, source := range parent.sources[len(r.userFiles):] {
				lookup.sources = append(lookup.sources, valuesSource{file: source.file, prefix: manifest.ConcatPath(source.prefix, manifest.JoinPath("", c.Name()))})
			}
		}
		if own := r.chartValues(c); own != nil {
			lookup.sources = append(lookup.sources, valuesSource{file: own})
		}
		for _, file := range c.Templates {
			name := path.Join(c.ChartFullPath(), file.Name)
			display := r.names[file]
			if display == "" {
				display = path.Join(r.display, name)
			}
			template := &templateFile{index: len(r.byIndex), name: name, display: display, source: file.Data, file: file, values: lookup,
				packaged: r.packaged[file], dependency: in.dependency, dependencyName: in.name}
			r.templates[name] = template
			r.byIndex = append(r.byIndex, template)
		}
		for _, dependency := range c.Dependencies() {
			sub := in
			if sub.dependency == nil {
				// The outermost archive: its name here is an alias or its chart's.
				sub = dependencyName{r.archivedChart(dependency), dependency.Name()}
			}
			walk(dependency, manifest.ConcatPath(prefix, manifest.JoinPath("", dependency.Name())), lookup, sub)
		}
	}
	walk(top, "", nil, dependencyName{})
}

// chartValues reads a chart's values.yaml with positions; nil when it has
// none or it does not parse (Helm already loaded it, so only tracing is lost).
func (r *renderer) chartValues(c *chart.Chart) *valuesFile {
	for _, file := range c.Raw {
		if file.Name != chartutil.ValuesfileName {
			continue
		}
		name := r.names[file]
		if name == "" {
			name = path.Join(r.display, c.ChartFullPath(), file.Name)
		}
		values, err := parseValuesFile(name, file.Data)
		if err != nil {
			return nil
		}
		values.packaged = r.archived[file] != nil
		return values
	}
	return nil
}

// render runs Helm's engine, after checking the chart's kubeVersion.
func (r *renderer) render() (map[string]string, error) {
	caps, err := capabilities(r.options)
	if err != nil {
		return nil, err
	}
	if r.top.Metadata.KubeVersion != "" && !chartutil.IsCompatibleRange(r.top.Metadata.KubeVersion, caps.KubeVersion.String()) {
		return nil, fmt.Errorf("%s: chart requires kubeVersion %s, incompatible with Kubernetes %s (set --kube-version)", path.Join(r.display, "Chart.yaml"),
			r.top.Metadata.KubeVersion, caps.KubeVersion.String())
	}
	rendered, err := r.engineRender()
	if err != nil {
		return nil, r.renderError(err)
	}
	return rendered, nil
}

// engineRender runs Helm's engine as `helm template` does (client-only,
// the bundled Kubernetes version or --kube-version, install of revision 1).
func (r *renderer) engineRender() (map[string]string, error) {
	release := chartutil.ReleaseOptions{Name: r.options.ReleaseName, Namespace: r.options.Namespace, Revision: 1, IsInstall: true}
	if release.Name == "" {
		release.Name = charts.DefaultReleaseName
	}
	if release.Namespace == "" {
		release.Namespace = "default"
	}
	caps, err := capabilities(r.options)
	if err != nil {
		return nil, err
	}
	renderValues, err := chartutil.ToRenderValuesWithSchemaValidation(r.top, r.values, release, caps, false)
	if err != nil {
		return nil, err
	}
	return engine.Engine{}.Render(r.top, renderValues)
}

// helmLocation finds the template Helm's message is about:
// "execution error at (tfs/templates/deployment.yaml:12:20): ...",
// "parse error at (tfs/templates/_helpers.tpl:5): ...",
// "template: tfs/templates/x.yaml:3:5: executing ...".
var helmLocation = lazyregexp.New(`(?:\(|template: )([^():\s]+):(\d+)(?::(\d+))?`)

// renderError names the template file users edit in front of Helm's message.
func (r *renderer) renderError(err error) error {
	message := oneLine(err.Error())
	if m := helmLocation.FindStringSubmatch(message); m != nil {
		if template := r.templates[m[1]]; template != nil {
			location := template.display + ":" + m[2]
			if m[3] != "" {
				location += ":" + m[3]
			}
			return fmt.Errorf("%s: %s", location, message)
		}
	}
	return fmt.Errorf("%s: %s", r.display, message)
}

var loadErrorLine = lazyregexp.New(`^[^\n]*?:(\d+): (.*)$`)

// yamlError reports rendered output that is not YAML at the template line
// that wrote the offending line.
func (r *renderer) yamlError(template *templateFile, origins []lineOrigin, err error) error {
	message := strings.TrimPrefix(err.Error(), template.display)
	if m := loadErrorLine.FindStringSubmatch(message); m != nil {
		var line int
		fmt.Sscan(m[1], &line)
		problem := strings.TrimPrefix(m[2], "invalid YAML: ")
		if line >= 1 && line <= len(origins) && origins[line-1].file >= 0 {
			origin := origins[line-1]
			return fmt.Errorf("%s:%d: the rendered output is not valid YAML (at its line %d): %s",
				r.byIndex[origin.file].display, origin.line, line, problem)
		}
		return fmt.Errorf("%s: the rendered output is not valid YAML (at its line %d): %s", template.display, line, problem)
	}
	return fmt.Errorf("%s: the rendered output is not valid YAML: %w", template.display, err)
}

// oneLine joins a multi-line message (Helm's schema errors) into one line.
func oneLine(message string) string {
	lines := strings.Split(strings.TrimSpace(message), "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return strings.Join(lines, "; ")
}
